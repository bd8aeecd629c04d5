/*
 * Call sites: checking that a recorded site is the call its descriptor
 * says, and choosing the bytes that make it reach a body.
 */
#include <string.h>

#include "internal.h"
#include "platform.h"

/*
 * A site refers to its callee if it branches straight to the generic, if
 * it goes through the function-pointer switch's own storage, or (calls
 * compiled without PLT) through a slot, such as a GOT entry, that holds
 * the generic's address.
 */
static int refers_to(const struct mv_insn *insn, const void *callee, int via_switch)
{
	void *slot;

	if (!insn->indirect)
		return !via_switch && insn->ref == (uintptr_t)callee;
	if (via_switch)
		return insn->ref == (uintptr_t)callee;
	return !mv_mem_read(&slot, (void *)insn->ref, sizeof slot) && slot == callee;
}

/* Decodes a site once its callee is known; one that is not the promised
 * call is reported now and never written.  name is the callee's. */
void mv_site_resolve(struct mv_site *s, int via_switch, const char *name)
{
	struct mv_area *a = &s->area;
	uint8_t *addr = a->addr;
	char hex[3 * MV_AREA_MAX];

	/* A 5-byte site may end right before unmapped memory. */
	if (mv_area_capture(a, addr, MV_ARCH_SITE_MAX) && mv_area_capture(a, addr, 5)) {
		mv_report("site %p calling %s is not readable; left alone", (void *)addr, name);
		return;
	}
	if (!mv_arch_decode(a->orig, a->len, (uintptr_t)addr, &s->insn)) {
		a->len = s->insn.len;
		if (refers_to(&s->insn, s->callee, via_switch))
			return;
	}
	a->state = MV_AREA_INVALID;
	mv_report("site %p calling %s holds %s, not a call we can patch; left alone",
		  (void *)addr, name, mv_hex(hex, a->orig, a->len));
}

/*
 * Points site s at body: inlined if inl describes a body that fits, else a
 * direct branch.  Without a body, or out of rel32 reach, the site gets its
 * original instruction back, which still reaches the right code.
 */
int mv_site_point(struct mv_site *s, const void *body,
		  const struct mv_body *inl, const char *name)
{
	uint8_t buf[MV_AREA_MAX];
	uintptr_t at = (uintptr_t)s->area.addr;
	int state;

	if (s->area.state < MV_AREA_ORIG)
		return 0;
	if (body && inl && !mv_arch_inline(buf, &s->insn, inl)) {
		state = MV_AREA_INLINED;
	} else if (body && !mv_arch_branch(buf, &s->insn, at, (uintptr_t)body)) {
		state = MV_AREA_BRANCH;
	} else {
		memcpy(buf, s->area.orig, s->area.len);
		state = MV_AREA_ORIG;
	}
	return mv_area_set(&s->area, buf, state, "site", name);
}
