/* SPDX-License-Identifier: MIT */
/*
 * Call sites: checking that a recorded site is the call its descriptor
 * says, and choosing the bytes that make it reach a body.
 */
#include "internal.h"

/*
 * A site refers to its callee if it branches straight to the generic, if
 * it goes through the function-pointer switch's own storage, or (calls
 * compiled without PLT) through a slot, such as a GOT entry, that holds
 * the generic's address.
 */
/* A GOT slot holds a function's canonical address (generic) or, for a
 * PLT slot, where its code starts. */
static int holds_callee(const struct mv_site *s, uintptr_t slot_addr)
{
	uintptr_t v;

	return !mv_mem_read(&v, (void *)slot_addr, sizeof v) &&
	       (v == (uintptr_t)s->callee || v == s->callee_code);
}

static int refers_to(const struct mv_site *s, int via_switch)
{
	const struct mv_insn *insn = &s->insn;

	if (!insn->indirect)
		return !via_switch && (insn->ref == (uintptr_t)s->callee ||
				       insn->ref == s->callee_code);
	if (via_switch)
		return insn->ref == (uintptr_t)s->callee;
	return holds_callee(s, insn->ref);
}

/*
 * A direct call may reach its callee through a trampoline:
 *   - a call into the module's PLT (a shared object calling an exported
 *     function) reaches the generic through a GOT slot.  It is patched
 *     only while the slot holds the generic, which with lazy binding is
 *     after the first call, and never if another module's definition
 *     interposes;
 *   - a linker's veneer (AArch64, a callee out of bl's reach) jumps to
 *     the generic;
 *   - the plugin's stub for a call through a function-pointer switch
 *     (GCC on AArch64, Clang) jumps through the switch, or through a GOT
 *     slot that holds the switch's address.
 */
static int via_trampoline(struct mv_site *s, int via_switch)
{
	uint8_t code[MV_ARCH_TRAMP_MAX];
	size_t avail = sizeof code;
	struct mv_tramp t;
	uintptr_t p;

	while (mv_mem_read(code, (void *)s->insn.ref, avail))
		if ((avail -= 4) < 8)   /* a trampoline right before unmapped memory */
			return 0;
	if (mv_arch_trampoline(code, avail, s->insn.ref, &t))
		return 0;
	switch (t.kind) {
	case MV_TRAMP_JUMP:
		return !via_switch && (t.target == (uintptr_t)s->callee ||
				       t.target == s->callee_code);
	case MV_TRAMP_SLOT:
		if (via_switch)
			return t.slot == (uintptr_t)s->callee;
		s->plt_slot = t.slot;
		return 1;
	case MV_TRAMP_SLOT2:
		return via_switch && !mv_mem_read(&p, (void *)t.slot, sizeof p) &&
		       p + t.disp == (uintptr_t)s->callee;
	}
	return 0;
}

static int plt_resolved(const struct mv_site *s)
{
	return holds_callee(s, s->plt_slot);
}

/* Whether a site through a PLT entry may be bound past it now: its slot
 * holds the function (no lazy binding pending, no interposition). */
int mv_site_plt_ok(const struct mv_site *s)
{
	return !s->plt_slot || plt_resolved(s);
}

/* A site's padding must be what the plugins plant, NOPs (the first
 * perhaps a jump over the others); a site whose padding is not stays a
 * plain call site. */
static void check_padding(struct mv_site *s, const char *name)
{
	uint8_t pad[MV_INLINE_MAX];

	if (!s->pad)
		return;
	if (s->pad > MV_INLINE_MAX || mv_mem_read(pad, s->area.addr - s->pad, s->pad) ||
	    !mv_arch_padding(pad, s->pad)) {
		mv_report("site %" MV_PRIaddr " calling %s: its %u bytes of padding are not "
			  "NOPs, nor a jump over NOPs; nothing will be inlined there", (void *)s->area.addr, name, s->pad);
		s->pad = 0;
	}
}

/*
 * Whether the MV_ARCH_SITE_MIN bytes at `at` are what commit writes, to
 * reach body, over the compiler's direct call (is_jmp: jump) to callee:
 * body inlined, or a direct branch to it.  Then returns that state and
 * gives that call, as bytes in orig and decoded in *insn; otherwise -1.
 * What the runtime takes from a precommitted file, and what
 * multiverse-precommit keeps of its commit.
 */
int mv_precommitted_form(const uint8_t *bytes, uintptr_t at, int is_jmp, uintptr_t callee,
			 const void *body, uint8_t *orig, struct mv_insn *insn)
{
	struct mv_insn call = { .len = MV_ARCH_SITE_MIN, .is_jmp = is_jmp };
	uint8_t want[MV_AREA_MAX];
	struct mv_body inl;

	if (mv_arch_branch(orig, &call, at, callee) ||
	    mv_arch_decode(orig, MV_ARCH_SITE_MIN, at, insn) || insn->len != MV_ARCH_SITE_MIN)
		return -1;
	mv_arch_classify(body, &inl);
	if (inl.kind != MV_BODY_OTHER && !mv_arch_inline(want, insn, &inl) &&
	    mv_same_bytes(bytes, want, MV_ARCH_SITE_MIN))
		return MV_AREA_INLINED;
	if (!mv_arch_branch(want, insn, at, (uintptr_t)body) &&
	    mv_same_bytes(bytes, want, MV_ARCH_SITE_MIN))
		return MV_AREA_BRANCH;
	return -1;
}

/* A precommitted site (MV_SITE_PRECOMMITTED) is taken for one that a
 * commit to its function's precommitted variant wrote, its original
 * encoded again.  It never gets a region: its padding, if any, keeps
 * the compiler's NOPs, and no copy goes there.  Returns 0, or -1 if it
 * holds anything else. */
static int resolve_precommitted(struct mv_site *s, const struct mv_fn *f)
{
	struct mv_area *a = &s->area;
	uint8_t orig[MV_AREA_MAX];
	const void *body = f ? mv_desc_fn_precommitted_body(f->desc) : 0;
	int state;

	if (!body)
		return -1;
	state = mv_precommitted_form(mv_cur(a), (uintptr_t)a->addr, s->precommitted == 2,
				     (uintptr_t)s->callee, body, orig, &s->insn);
	if (state < 0)
		return -1;
	a->len = MV_ARCH_SITE_MIN;
	memcpy(mv_orig(a), orig, MV_ARCH_SITE_MIN);
	a->state = state;
	return 0;
}

/* Decodes a site, which its callee's record is known for, the first time
 * it is needed (mv_check_sites); one that is not the promised call is
 * reported now and never written.  name is the callee's. */
void mv_site_resolve(struct mv_site *s, struct mv_fn *f, const char *name)
{
	int via_switch = !f;

	struct mv_area *a = &s->area;
	uint8_t *addr = a->addr;
	char hex[3 * MV_AREA_MAX];

	/* A short site may end right before unmapped memory. */
	if (mv_area_capture(a, addr, MV_ARCH_SITE_MAX) &&
	    mv_area_capture(a, addr, MV_ARCH_SITE_MIN)) {
		mv_report("site %" MV_PRIaddr " calling %s is not readable; left alone", (void *)addr, name);
		return;
	}
	s->via_switch = via_switch;
	if (f)
		s->callee_code = f->code;
	if (s->precommitted) {
		check_padding(s, name);
		s->stale = !!resolve_precommitted(s, f);
		if (!s->stale)
			return;
		/* not a verdict: a debugger's breakpoint may be there for a
		 * while, and the site, read again, be as precommitted */
		a->state = MV_AREA_UNRESOLVED;
		if (f)
			f->stale = 1;
		mv_report("site %" MV_PRIaddr " calling %s: precommitted, but it holds %s, neither the "
			  "call it replaced nor what commit writes for the precommitted variant; "
			  "%s is not changed while it does", (void *)addr, name,
			  mv_hex(hex, mv_cur(a), MV_ARCH_SITE_MIN), name);
		return;
	}
	if (!mv_arch_decode(mv_orig(a), a->len, (uintptr_t)addr, &s->insn)) {
		a->len = s->insn.len;
		if (!mv_poke_writable(mv_orig(a), a->len)) {
			a->state = MV_AREA_INVALID;
			mv_report("site %" MV_PRIaddr " calling %s holds %s, which this platform cannot rewrite; left alone",
				  (void *)addr, name, mv_hex(hex, mv_orig(a), a->len));
			return;
		}
		if (refers_to(s, via_switch) ||
		    (!s->insn.indirect && via_trampoline(s, via_switch))) {
			check_padding(s, name);
			mv_region_setup(s, f, name);
			return;
		}
	}
	a->state = MV_AREA_INVALID;
	mv_report("site %" MV_PRIaddr " calling %s holds %s, not a call we can patch; left alone",
		  (void *)addr, name, mv_hex(hex, mv_orig(a), a->len));
}

/* Builds and checks the sites of a run that were never checked: those of
 * function f (NULL: of a function-pointer switch) called name, whose
 * *checked says when they last all were.  Before any of them is written,
 * and before the state of any is told.  Allocates nothing: the sites
 * that may get a region were read when merged.  Returns 1 if every site
 * of the run has its record, 0 if some may not. */
int mv_check_sites(size_t site0, size_t n, struct mv_fn *f, const char *name,
		   unsigned long *checked)
{
	int again = 0;

	if (*checked == mv.generation)
		return 1;
	/* An unloading batch reads nothing new: a site never read was never
	 * written, and its call still reaches the generic, whose entry leads
	 * to whatever the function runs. */
	if (mv_poke_must_forward)
		return 0;
	for (size_t i = site0; i < site0 + n; i++)
		if (mv_site_build(i)->area.state == MV_AREA_UNRESOLVED) {
			mv_mem_fresh();
			mv_site_resolve(&mv.sites[i], f, name);
			again |= mv.sites[i].stale;
		}
	/* resolving gives every site its verdict, but a stale precommitted
	 * one, read again next time */
	if (!again)
		*checked = mv.generation;
	return 1;
}

/*
 * The bytes of site s's call that make it reach body: inlined if inl
 * describes a body that fits in one instruction, else a direct branch,
 * each where the platform can write it; a switch's site, or one sent to
 * a function's own address, through a far-call gate if the body is out
 * of a direct branch's reach.  Without a
 * body, or out of reach without a gate, the original instruction, which
 * still reaches the right code.
 * Returns the state they put the area in.
 */
static inline __attribute__((always_inline))
int site_bytes(struct mv_site *s, const void *body, const struct mv_body *inl, uint8_t *buf)
{
	uintptr_t at = (uintptr_t)s->area.addr;
	const void *gate;

	if (body && s->plt_slot && !plt_resolved(s))
		body = 0;
	if (body && inl && !mv_fault_no_inline() && !mv_arch_inline(buf, &s->insn, inl) &&
	    mv_poke_writable(buf, s->area.len))
		return MV_AREA_INLINED;
	if (body && !mv_arch_branch(buf, &s->insn, at, (uintptr_t)body) &&
	    mv_poke_writable(buf, s->area.len))
		return MV_AREA_BRANCH;
	/* A switch's target beyond a direct branch's reach (libc from a
	 * PIE), or a redirect's (a function in a module loaded later):
	 * through a gate, an indirect jump, which lands on a function's own
	 * address, as an indirect call does (a landing pad, if the target
	 * needs one).  A function's site keeps the call that reaches the
	 * generic, whose entry jumps to the body: a variant has no landing
	 * pad for an indirect jump. */
	gate = body && (s->via_switch || s->to_function) &&
	       !mv_arch_branch(buf, &s->insn, at, at) ?
	       mv_gate(at, body) : 0;
	if (gate && !mv_arch_branch(buf, &s->insn, at, (uintptr_t)gate) &&
	    mv_poke_writable(buf, s->area.len))
		return MV_AREA_BRANCH;
	/* All of buf at once, as mv_arch_branch() writes it: one store
	 * that the 4-byte compares after it can forward from. */
	memcpy(buf, mv_orig(&s->area), MV_AREA_MAX);
	return MV_AREA_ORIG;
}

/* For regions (region.c); mv_site_point() has it inlined, once a site. */
int mv_site_bytes(struct mv_site *s, const void *body, const struct mv_body *inl,
		  uint8_t *buf)
{
	return site_bytes(s, body, inl, buf);
}

/* Points site s at body: a copy of variant v in its region if it has one
 * and v fits there (region.c), else as mv_site_bytes() says.  s->aim
 * tells what the site will hold once the batch is written: MV_AREA_ORIG
 * or below where it keeps or was left its compiler's call. */
static inline __attribute__((always_inline))
int site_point(struct mv_site *s, const void *body, const struct mv_body *inl,
	       const struct mv_desc_variant *v, const uint8_t *pristine, const char *name)
{
	uint8_t buf[MV_AREA_MAX];
	int state, err;

	s->aim = s->area.state;
	if (s->area.state < MV_AREA_ORIG)
		return 0;
	if (s->region) {
		int r = mv_region_point(s, body, inl, v, pristine, name);
		if (r <= 0)
			return r;
	}
	state = site_bytes(s, body, inl, buf);
	err = mv_area_set(&s->area, buf, state, "site", name);
	s->aim = s->area.state < MV_AREA_ORIG ? s->area.state : state;
	return err;
}

int mv_site_point(struct mv_site *s, const void *body, const struct mv_body *inl,
		  const struct mv_desc_variant *v, const uint8_t *pristine,
		  const char *name)
{
	return site_point(s, body, inl, v, pristine, name);
}

/* A function's run of sites, as mv_site_point() each: the work of a
 * commit, once per site, with no call per site.  to_function says that
 * body is a function's own address (a redirect's, redirect.c).  A site
 * never built is left alone, unless all says every one is. */
int mv_sites_point(size_t site0, size_t n, int all, int to_function, const void *body,
		   const struct mv_body *inl, const struct mv_desc_variant *v,
		   const uint8_t *pristine, const char *name)
{
	for (size_t i = site0; i < site0 + n; i++) {
		struct mv_site *s = all ? &mv.sites[i] : mv_site_if_built(i);
		int err;

		if (!s)
			continue;
		s->to_function = to_function;
		err = site_point(s, body, inl, v, pristine, name);
		if (err)
			return err;
	}
	return 0;
}
