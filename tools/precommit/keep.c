/* SPDX-License-Identifier: MIT */
/*
 * multiverse-precommit: of what the commit wrote into the mapping, what
 * the output keeps, and the records that say so.
 */
#include "precommit.h"

/* The output: the file, with what commit wrote where the runtime can
 * tell it again (precommitted), and the records saying so. */
uint8_t *out;

uint8_t *out_at(uint64_t vaddr, uint64_t len)
{
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr - ph[i].p_vaddr <= ph[i].p_filesz &&
		    len <= ph[i].p_filesz - (vaddr - ph[i].p_vaddr))
			return out + ph[i].p_offset + (vaddr - ph[i].p_vaddr);
	fail("an address to precommit, %#lx, has no bytes in the file", (unsigned long)vaddr);
	return 0;
}

unsigned n_fns, n_sites, n_sites_all;

/* The variant whose jump commit wrote at f's entry, or -1 for none. */
static int committed_variant(const struct mv_desc_fn *f)
{
	const uint8_t *entry = mv_desc_fn_entry(f);
	const struct mv_desc_variant *vs = mv_desc_fn_variants(f);
	uint8_t jmp[MV_ARCH_ENTRY_LEN];

	if (!memcmp(entry, out_at(vaddr_of(entry), MV_ARCH_ENTRY_LEN), MV_ARCH_ENTRY_LEN))
		return -1;
	for (uint32_t k = 0; k < f->n_variants && k <= 0xffff; k++)
		if (!mv_arch_entry_jump(jmp, (uintptr_t)entry, (uintptr_t)mv_desc_variant_body(&vs[k])) &&
		    !memcmp(entry, jmp, MV_ARCH_ENTRY_LEN))
			return k;
	return -1;
}

/* Site s, calling f, precommitted to body: if commit changed it from
 * the compiler's direct call or jump to f into a form the runtime tells
 * again (mv_precommitted_form), its padding untouched, marks it and
 * takes its bytes.  A site the commit gave a copy in its padding, or left
 * alone, keeps its call, which reaches body through f's entry. */
static void take_site(const struct mv_desc_site *s, const struct mv_desc_fn *f, const void *body)
{
	const uint8_t *at = mv_desc_site_addr(s);
	uint8_t *o = out_at(vaddr_of(at), MV_ARCH_SITE_MIN);
	uint8_t orig[MV_AREA_MAX];
	struct mv_insn insn, again;
	struct mv_desc_site *rec;

	n_sites_all++;
	/* a padded site, only if its padding kept the compiler's NOPs
	 * (commit did not copy a variant there) */
	if (!memcmp(at, o, MV_ARCH_SITE_MIN) ||
	    memcmp(at - s->pad, out_at(vaddr_of(at) - s->pad, s->pad), s->pad) ||
	    mv_arch_decode(o, MV_ARCH_SITE_MIN, (uintptr_t)at, &insn) ||
	    insn.indirect || insn.len != MV_ARCH_SITE_MIN ||
	    insn.ref != (uintptr_t)mv_desc_fn_generic(f) ||
	    mv_precommitted_form(at, (uintptr_t)at, insn.is_jmp, insn.ref, body, orig, &again) < 0 ||
	    memcmp(orig, o, MV_ARCH_SITE_MIN))
		return;
	memcpy(o, at, MV_ARCH_SITE_MIN);
	rec = (struct mv_desc_site *)out_at(vaddr_of(s), sizeof *s);
	rec->flags |= MV_SITE_PRECOMMITTED | (insn.is_jmp ? MV_SITE_PRECOMMITTED_JMP : 0);
	n_sites++;
}

/* Whether variant v is a probe's for "not NULL" (a guard on a
 * function-pointer switch other than NULL's): its calls through that
 * switch are bound by a commit of the switch, which this tool does not
 * keep, so the variant is not precommitted.  The variant for NULL calls
 * nothing through it. */
static int probes(const struct mv_desc_variant *v)
{
	const struct mv_desc_guard *g = mv_desc_variant_guards(v);

	for (uint32_t j = 0; j < v->n_guards; j++) {
		const struct mv_var *x = mv_find_var(mv_desc_guard_var(v, &g[j]));

		if (x && x->flags & MV_VAR_FNPTR && (g[j].low || g[j].high))
			return 1;
	}
	return 0;
}

/* After the commit, whose tables hold each function's run of sites. */
void precommit(void)
{
	out = malloc(file_size);
	if (!out)
		fail("out of memory");
	memcpy(out, file, file_size);
	for (const struct mv_desc_fn *f = mod.fn; f < mod.fn_end; f++) {
		int k = f->flags & MV_FN_PLAIN ? -1 : committed_variant(f);
		struct mv_desc_fn *rec;
		const struct mv_fn *rf;

		if (k < 0 || probes(&mv_desc_fn_variants(f)[k]))
			continue;
		memcpy(out_at(vaddr_of(mv_desc_fn_entry(f)), MV_ARCH_ENTRY_LEN),
		       mv_desc_fn_entry(f), MV_ARCH_ENTRY_LEN);
		rec = (struct mv_desc_fn *)out_at(vaddr_of(f), sizeof *f);
		rec->flags = (rec->flags & ~MV_FN_PRECOMMITTED_MASK) | MV_FN_PRECOMMITTED |
			     (uint32_t)k << MV_FN_PRECOMMITTED_SHIFT;
		n_fns++;
		if (verbose)
			fprintf(stderr, "%s: %s: %s: variant %d\n", prog, path, mv_desc_fn_name(f), k);
		if (!(rf = mv_find_fn(mv_desc_fn_generic(f))))
			fail("%s: the runtime does not know it after the commit", mv_desc_fn_name(f));
		for (size_t j = rf->site0; j < rf->site0 + rf->n_sites; j++)
			take_site(mv_site_desc(j), f, mv_desc_variant_body(&mv_desc_fn_variants(f)[k]));
	}
}
