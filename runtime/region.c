/* SPDX-License-Identifier: MIT */
/*
 * Padded call sites: NOPs, then the call (common/descriptor.h).  The
 * whole stretch, the site's region, may receive a copy of the selected
 * variant's code, which the compiler found movable and described
 * (mv_desc_variant: no call, no stack, one return at its end, its
 * PC-relative fields listed).  The copy is relocated for its new address,
 * padded to the region's end (a tail call's copy ends in a return), and
 * then runs instead of the call: no call, no return, no argument set-up
 * that the body ignores... whatever the variant does not do, the site
 * does not do either.
 *
 * A site with a region has two areas over the same text: the call
 * (s->area, one instruction, written live as every call site is) and
 * the region (several instructions).  The region is used while it holds
 * a copy, to put one there, and to take one away; otherwise the call
 * area is.  Whichever was written last says what runs (via_region); the
 * other is brought up to date before it is used.
 *
 * Padding of more than one NOP starts with a jump over the rest, which
 * the compiler puts there (so the padding runs one instruction, copy or
 * not), and which leads to the call whatever the call holds: outside a
 * copy, the padding never changes, and a change of the call alone is
 * written live, as at a site without padding.
 *
 * Changing a region changes several instructions, which no thread may be
 * executing meanwhile.  Every batch with a region therefore parks the
 * other threads first (poke.c, write_stopped(), and stop.c): a batch
 * proceeds only when no parked thread stands inside a region it changes
 * and none is inside a signal handler (whose interrupted context might).
 * A return address never points inside a region: the call is its last
 * instruction, and a copy makes no call.
 *
 * A trap at the first byte of a region (during a batch, or one a failed
 * batch left, poke.c) cannot emulate several instructions: it emulates
 * the region's equivalent instead, the call or jump to the variant that
 * the copy stands for (or the region's call itself), as if at the call.
 */
#include "internal.h"

/* Whether a variant may ever be copied into a region.  One with nothing
 * to copy is only its return: an empty body, which the call itself holds
 * (mv_arch_inline(), a NOP or a return written live), so mv_region_point()
 * does not copy it and its sites need no region.  (Should its code not
 * read as empty, a return thunk say, the site calls it: correct, only
 * slower.) */
static int copyable(const struct mv_desc_variant *v)
{
	return v->inlining == MV_INLINE_OK && v->copy_len;
}

/* Whether a variant of f fits the call itself: a site without padding
 * gets a region too, when a copy saves the call. */
static int fits_call(const struct mv_site *s, const struct mv_fn *f)
{
	const struct mv_desc_variant *v;

	if (!f || f->desc->flags & MV_FN_PLAIN)       /* never selected */
		return 0;
	v = f->variants;
	for (uint32_t i = 0; i < f->desc->n_variants; i++)
		if (copyable(&v[i]) && mv_arch_fits(&s->insn, v[i].copy_len, s->area.len))
			return 1;
	return 0;
}

/* Whether a site of f without padding may get a region: some variant of
 * f may fit a call (fits_call() needs the decoded call itself). */
int mv_region_may_fit_call(const struct mv_fn *f)
{
	const struct mv_desc_variant *v;

	if (!MV_PLATFORM_REGIONS || !f || f->desc->flags & MV_FN_PLAIN)
		return 0;
	v = f->variants;
	for (uint32_t i = 0; i < f->desc->n_variants; i++)
		if (copyable(&v[i]) && v[i].copy_len <= MV_ARCH_SITE_MAX)
			return 1;
	return 0;
}

/* Regions are made when their module is merged (mv_check_region_sites()
 * reads those sites first), so that no batch allocates: a site read later
 * gets none. */
void mv_region_setup(struct mv_site *s, const struct mv_fn *f, const char *name)
{
	struct mv_area *r;
	size_t len = (size_t)s->pad + s->area.len;

	if (!MV_PLATFORM_REGIONS || s->region || (!s->pad && !fits_call(s, f)))
		return;
	/* one allocation: the area, then its bytes */
	r = malloc(sizeof *r + MV_WIDE_BYTES(len));
	if (r) {
		memset(r, 0, sizeof *r);
		r->order = MV_AREA_NO_ORDER;
		r->wide = (uint8_t *)(r + 1);
	}
	if (!r || mv_area_capture(r, s->area.addr - s->pad, len)) {
		free(r);
		mv_report("site %" MV_PRIaddr " calling %s: no memory for its region; "
			  "nothing will be inlined there", (void *)s->area.addr, name);
		return;
	}
	mv_wide_call(r)[0] = s->pad;
	mv_wide_call(r)[1] = s->area.len;
	memcpy(mv_wide_eq(r, 0), mv_orig(&s->area), s->area.len);
	s->region = r;
	mv.n_regions++;
}

void mv_region_free(struct mv_site *s)
{
	if (!s->region)
		return;
	free(s->region);
	s->region = 0;
	mv.n_regions--;
}

/* The code of f's inlinable variants as it is when f is first merged,
 * before anyone could have changed it: a copy is made only of code that
 * still reads the same (a debugger's breakpoint, or a uprobe, in a
 * variant must not be copied along). */
void mv_region_capture(struct mv_fn *f)
{
	const struct mv_desc_fn *d = f->desc;
	const struct mv_desc_variant *x = f->variants;
	size_t n = 0;

	free(f->pristine);
	f->pristine = 0;
	if (!MV_PLATFORM_REGIONS)
		return;
	for (uint32_t i = 0; i < d->n_variants; i++)
		if (x[i].inlining == MV_INLINE_OK)
			n += x[i].copy_len;
	if (!n || !(f->pristine = malloc(n)))
		return;         /* without it, nothing of f is copied */
	n = 0;
	for (uint32_t i = 0; i < d->n_variants; i++) {
		const struct mv_desc_variant *v = &x[i];
		if (v->inlining != MV_INLINE_OK)
			continue;
		if (mv_mem_read(f->pristine + n, (const uint8_t *)mv_desc_variant_body(v) + v->copy_off,
				v->copy_len)) {
			free(f->pristine);
			f->pristine = 0;
			return;
		}
		n += v->copy_len;
	}
}

/* The pristine code of variant v of f, or NULL. */
const uint8_t *mv_region_pristine(struct mv_fn *f, const struct mv_desc_variant *v)
{
	size_t n = 0;

	const struct mv_desc_variant *x = f->variants;

	for (uint32_t i = 0; f->pristine && i < f->desc->n_variants; i++) {
		if (&x[i] == v)
			return f->pristine + n;
		if (x[i].inlining == MV_INLINE_OK)
			n += x[i].copy_len;
	}
	return 0;
}

/* The call area takes over again from a region that holds the padding
 * and a call, written whole. */
static void hand_back(struct mv_site *s)
{
	struct mv_area *r = s->region;

	memcpy(mv_cur(&s->area), mv_cur(r) + s->pad, s->area.len);
	s->area.state = r->state;
	s->via_region = 0;
}

/* The region takes over from the call area: it holds the padding and
 * what the call area holds. */
static void take_over(struct mv_site *s)
{
	struct mv_area *r = s->region;

	memcpy(mv_cur(r) + s->pad, mv_cur(&s->area), s->area.len);
	memcpy(mv_wide_eq(r, 0), mv_cur(&s->area), s->area.len);
	r->state = s->area.state;
	s->via_region = 1;
}

/* The copy of variant v (at body; its code as first read: pristine) for
 * site s's region, in buf, and the call or jump it stands for in eq.
 * Returns 0, or -1 if v does not fit, changed, cannot be moved there, or
 * its equivalent cannot reach it. */
static int copy_variant(struct mv_site *s, const struct mv_desc_variant *v,
			const uint8_t *pristine, uint8_t *buf, uint8_t *eq)
{
	struct mv_area *r = s->region;
	const uint8_t *body = mv_desc_variant_body(v), *from = body + v->copy_off;
	const struct mv_desc_reloc *relocs = mv_desc_variant_relocs(v);

	if (!pristine || v->inlining != MV_INLINE_OK ||
	    !mv_arch_fits(&s->insn, v->copy_len, r->len) || mv_mem_read(buf, from, v->copy_len))
		return -1;
	if (memcmp(buf, pristine, v->copy_len))
		return -2;
	for (uint32_t i = 0; i < v->n_relocs; i++)
		if (mv_arch_relocate(buf, v->copy_len, &relocs[i], (uintptr_t)from,
				     (uintptr_t)r->addr))
			return -1;
	mv_arch_finish_copy(buf, v->copy_len, r->len, &s->insn);
	if (mv_arch_branch(eq, &s->insn, (uintptr_t)s->area.addr, (uintptr_t)body))
		return -1;
	return mv_poke_writable(buf, r->len) ? 0 : -1;
}

/*
 * Points site s, which has a region, at body, variant v of it if v may be
 * inlined (inl: what mv_site_bytes() may inline in one instruction).
 * Returns 1 if the call area is to do it, else 0 or -errno.
 */
int mv_region_point(struct mv_site *s, const void *body, const struct mv_body *inl,
		    const struct mv_desc_variant *v, const uint8_t *pristine,
		    const char *name)
{
	struct mv_area *r = s->region;
	uint8_t buf[MV_REGION_MAX], eq[MV_AREA_MAX];
	int state, copy, err;

	if (r->state < MV_AREA_ORIG)
		return 1;
	/* A body the call itself can hold stays in the call: it is
	 * written without stopping anyone. */
	copy = body && v && !(inl && inl->kind != MV_BODY_OTHER) &&
	       !mv_fault_no_inline() && !s->area.stuck && mv_site_plt_ok(s) &&
	       (r->state == MV_AREA_COPIED || mv_poke_copies_allowed());
	if (copy && (err = copy_variant(s, v, pristine, buf, eq)) < 0) {
		static const void *told;        /* said once per variant in a row */
		if (err == -2 && told != mv_desc_variant_body(v) && (told = mv_desc_variant_body(v)))
			mv_report("%s: the code at %" MV_PRIaddr " changed since it was loaded "
				  "(a debugger's breakpoint?); it is called, not copied",
				  name, told);
		copy = 0;
	}
	if (!copy) {
		_Static_assert(MV_INLINE_MAX + MV_AREA_MAX <= MV_REGION_MAX,
			       "the call's bytes after the longest padding fit buf");
		state = mv_site_bytes(s, body, inl, buf + s->pad);
		memcpy(buf, mv_orig(r), s->pad);
		/* The call alone changes, live, where the region holds no
		 * copy. */
		if (!r->stuck && r->state != MV_AREA_COPIED) {
			if (s->via_region)
				hand_back(s);
			return 1;
		}
		memcpy(eq, buf + s->pad, s->area.len);
	}
	if (!s->via_region)
		take_over(s);
	if (copy)
		state = MV_AREA_COPIED;
	memcpy(mv_wide_eq(r, 1), eq, MV_AREA_MAX);
	err = mv_area_set(r, buf, state, "site", name);
	if (r->state == MV_AREA_SKIPPED)        /* one site, left alone whole */
		s->area.state = MV_AREA_SKIPPED;
	s->aim = r->state < MV_AREA_ORIG ? r->state : state;
	return err;
}

/* A region a failed batch left stuck is written again, with what the
 * runtime reports it runs (poke.c). */
void mv_region_sweep(struct mv_site *s)
{
	struct mv_area *r = s->region;

	if (r->queued)          /* this batch rewrites it already */
		return;
	memcpy(mv_wide_eq(r, 1), mv_wide_eq(r, 0), MV_AREA_MAX);
	mv_area_set(r, mv_cur(r), r->state, "call site", "a stuck site");
	if (r->state == MV_AREA_SKIPPED)
		s->area.state = MV_AREA_SKIPPED;
}
