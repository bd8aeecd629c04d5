/* SPDX-License-Identifier: MIT */
/*
 * Read-only views of the run-time state, for programs and for people.
 */
#include "internal.h"
#include "multiverse-version.h"

static unsigned distinct_bodies(const struct mv_fn *f)
{
	const struct mv_desc_variant *x = f->variants;
	unsigned n = 0;

	for (uint32_t i = 0; i < f->desc->n_variants; i++) {
		uint32_t j = 0;

		while (j < i && mv_desc_variant_body(&x[j]) != mv_desc_variant_body(&x[i]))
			j++;
		n += j == i;
	}
	return n;
}

static unsigned count_fns(const void *var)
{
	unsigned n = 0;

	for (size_t i = 0; i < mv.n_fns; i++)
		n += mv_reads(mv.fns[i].desc, var);
	return n;
}

/* What a site in state holds, as the API says it (MULTIVERSE_SITE_*);
 * invalid sites count as skipped: both are left alone for their bytes. */
static int holds(int state)
{
	switch (state) {
	case MV_AREA_BRANCH: return MULTIVERSE_SITE_CALL;
	case MV_AREA_INLINED: return MULTIVERSE_SITE_INLINED;
	case MV_AREA_COPIED: return MULTIVERSE_SITE_COPIED;
	case MV_AREA_SKIPPED: case MV_AREA_INVALID: return MULTIVERSE_SITE_SKIPPED;
	default: return MULTIVERSE_SITE_ORIGINAL;
	}
}

struct tally {
	unsigned patched, inlined, skipped;
};

static struct tally tally_sites(size_t site0, size_t n)
{
	struct tally t = { 0, 0, 0 };

	for (size_t i = site0; i < site0 + n; i++) {
		int h = holds(mv_site_state_at(i));

		t.patched += h == MULTIVERSE_SITE_CALL;
		t.inlined += h == MULTIVERSE_SITE_INLINED || h == MULTIVERSE_SITE_COPIED;
		t.skipped += h == MULTIVERSE_SITE_SKIPPED;
	}
	return t;
}

MV_API const struct mv_info_fn *multiverse_info_fn(void *fn)
{
	static MV_THREAD_LOCAL struct mv_info_fn info;
	struct mv_fn *f;

	mv_lock();
	f = mv_sync() < 0 ? 0 : mv_find_fn_named(fn);
	if (f) {
		mv_check_sites(f->site0, f->n_sites, f, f->name, &f->checked);
		struct tally t = tally_sites(f->site0, f->n_sites);

		info = (struct mv_info_fn){
			.name = f->name,
			.generic = f->generic,
			.active = f->active,
			.committed = f->active != f->generic,
			.n_variants = f->desc->flags & MV_FN_PLAIN ? 0 : distinct_bodies(f),
			.n_sites = f->n_sites,
			.n_sites_inlined = t.inlined,
			.n_sites_skipped = t.skipped,
			.redirect = f->redirect,
		};
	}
	mv_unlock();
	return f ? &info : 0;
}

MV_API const struct mv_info_site *multiverse_info_site(void *fn, unsigned i)
{
	static MV_THREAD_LOCAL struct mv_info_site info;
	const struct mv_site *s = 0;
	struct mv_fn *f;
	struct mv_var *v;

	mv_lock();
	if (mv_sync() >= 0) {
		if ((f = mv_find_fn_named(fn)) && i < f->n_sites) {
			mv_check_sites(f->site0, f->n_sites, f, f->name, &f->checked);
			s = mv_site_if_built(f->site0 + i);
		} else if (!f && (v = mv_find_var(fn)) && (v->flags & MV_VAR_FNPTR) && i < v->n_sites) {
			mv_check_sites(v->site0, v->n_sites, 0, v->name, &v->checked);
			s = mv_site_if_built(v->site0 + i);
		}
	}
	if (s)
		info = (struct mv_info_site){
			.addr = s->area.addr,
			.pad = s->pad,
			.holds = holds(mv_site_state(s)),
		};
	mv_unlock();
	return s ? &info : 0;
}

MV_API const struct mv_info_var *multiverse_info_var(void *var)
{
	static MV_THREAD_LOCAL struct mv_info_var info;
	const struct mv_var *v;

	mv_lock();
	v = mv_sync() < 0 ? 0 : mv_find_var(var);
	if (v)
		info = (struct mv_info_var){
			.name = v->name,
			.addr = v->addr,
			.width = v->width,
			.is_signed = !!(v->flags & MV_VAR_SIGNED),
			.is_fnptr = !!(v->flags & MV_VAR_FNPTR),
			.is_tracked = !!(v->flags & MV_VAR_TRACKED),
			.is_bound = v->bound,
			.n_functions = count_fns(v->addr),
			.n_sites = v->n_sites,
		};
	mv_unlock();
	return v ? &info : 0;
}

static void print_value(const struct mv_printer *out, int is_signed, int64_t v)
{
	if (is_signed)
		out->print(out->ctx, "%" PRId64, v);
	else
		out->print(out->ctx, "%" PRIu64, (uint64_t)v);
}

static void dump_sites(const struct mv_printer *out, size_t site0, size_t n)
{
	struct tally t = tally_sites(site0, n);

	out->print(out->ctx, "  sites: %zu, %u patched, %u inlined, %u skipped\n", n,
		t.patched, t.inlined, t.skipped);
}

static void dump_var(const struct mv_printer *out, const struct mv_var *v)
{
	int sgn = v->flags & MV_VAR_SIGNED;

	out->print(out->ctx, "switch %s at %p: ", v->name, v->addr);
	if (v->flags & MV_VAR_FNPTR) {
		out->print(out->ctx, "function pointer, value %p, ", *(void **)v->addr);
		if (v->active)
			out->print(out->ctx, "committed to %p\n", v->active);
		else if (v->committed && v->reached)
			out->print(out->ctx, "committed to NULL, its sites still reach %p\n",
				   v->reached);
		else if (v->committed)
			out->print(out->ctx, "committed to NULL\n");
		else
			out->print(out->ctx, "not committed\n");
		dump_sites(out, v->site0, v->n_sites);
		return;
	}
	out->print(out->ctx, "%u-byte %s, %s, %s, value ", v->width, sgn ? "signed" : "unsigned",
		v->flags & MV_VAR_TRACKED ? "tracked" : "untracked",
		v->bound ? "bound" : "unbound");
	print_value(out, sgn, mv_switch_read(v->addr, v->width, sgn));
	out->print(out->ctx, "\n");
}

/* A probe's guard (a function-pointer switch's) as text, or NULL. */
static const char *probe_state(const struct mv_desc_guard *g)
{
	if (!g->low)
		return !g->high ? "== NULL" : g->high == -1 ? "== NULL or not" : 0;
	return g->low == 1 && g->high == -1 ? "!= NULL" : 0;
}

static void dump_variant(const struct mv_printer *out, const struct mv_desc_variant *x, unsigned i)
{
	out->print(out->ctx, "  variant %u at %p:", i, mv_desc_variant_body(x));
	for (uint32_t j = 0; j < x->n_guards; j++) {
		const struct mv_desc_guard *g = &mv_desc_variant_guards(x)[j];
		const struct mv_var *v = mv_find_var(mv_desc_guard_var(x, g));
		int sgn = v && v->flags & MV_VAR_SIGNED;

		const char *probe = v && v->flags & MV_VAR_FNPTR ? probe_state(g) : 0;

		if (probe) {
			out->print(out->ctx, "%s %s %s", j ? "," : "", v->name, probe);
			continue;
		}
		out->print(out->ctx, "%s %s in [", j ? "," : "", v ? v->name : "(unknown switch)");
		print_value(out, sgn, g->low);
		out->print(out->ctx, ", ");
		print_value(out, sgn, g->high);
		out->print(out->ctx, "]");
	}
	out->print(out->ctx, "%s", x->n_guards ? "" : " (no guards)");
	if (x->inlining == MV_INLINE_OK)
		out->print(out->ctx, "; inlinable, %u bytes\n", x->copy_len);
	else
		out->print(out->ctx, "\n");
}

/* A plain function's record of its own code. */
static void dump_own_code(const struct mv_printer *out, const struct mv_desc_variant *x)
{
	out->print(out->ctx, "  own code at %p: ", mv_desc_variant_body(x));
	if (x->inlining == MV_INLINE_OK)
		out->print(out->ctx, "inlinable, %u bytes\n", x->copy_len);
	else
		out->print(out->ctx, "not inlinable\n");
}

static void dump_fn(const struct mv_printer *out, const struct mv_fn *f)
{
	const struct mv_desc_fn *d = f->desc;
	static const char entry[][8] = {     /* no pointers to relocate */
		[MV_AREA_INVALID] = "invalid", [MV_AREA_SKIPPED] = "skipped",
		[MV_AREA_ORIG] = "nop", [MV_AREA_BRANCH] = "jmp",
	};

	out->print(out->ctx, "function %s at %p: ", f->name, f->generic);
	if (d->flags & MV_FN_PLAIN)
		out->print(out->ctx, "plain (no variants)");
	else if (f->active != f->generic)
		out->print(out->ctx, "committed to %p", f->active);
	else
		out->print(out->ctx, "generic, not committed");
	if (f->redirect)
		out->print(out->ctx, ", redirected to %p", f->redirect);
	out->print(out->ctx, ", entry %s\n", entry[f->entry.state][0] ? entry[f->entry.state] : "?");
	for (uint32_t i = 0; i < d->n_variants; i++)
		if (d->flags & MV_FN_PLAIN)
			dump_own_code(out, &f->variants[i]);
		else
			dump_variant(out, &f->variants[i], i);
	dump_sites(out, f->site0, f->n_sites);
}

/* Everything the tables hold, for people: multiverse_dump_info() in a
 * process, the debugfs file in the kernel. */
void mv_dump(const struct mv_printer *out)
{
	mv_lock();
	mv_sync();
	mv_check_all_sites();
	out->print(out->ctx, "multiverse: %zu switches, %zu functions\n", mv.n_vars, mv.n_fns);
	for (size_t i = 0; i < mv.n_vars; i++)
		dump_var(out, &mv.vars[i]);
	for (size_t i = 0; i < mv.n_fns; i++)
		dump_fn(out, &mv.fns[i]);
	out->print(out->ctx, "last error: %s\n", multiverse_last_error());
	mv_unlock();
}

MV_API const char *multiverse_version(void)
{
	return MV_VERSION_STRING;
}
