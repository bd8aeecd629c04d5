/* SPDX-License-Identifier: MIT */
/*
 * multiverse-precommit: the file's descriptor records, in the mapping,
 * checked to describe only what the file holds, and registered with the
 * runtime this program is linked with.
 */
#include "precommit.h"

/* The records, in the mapping. */
struct mv_module mod;

static const void *records(const Elf64_Shdr *s, size_t size, const void **end)
{
	if (!s) {
		*end = 0;
		return 0;
	}
	if (s->sh_size % size || s->sh_addr % 8 || s->sh_type == SHT_NOBITS ||
	    !inside(s->sh_addr, s->sh_size))
		fail("its section %s is corrupt", section_name(s));
	*end = base + s->sh_addr + s->sh_size;
	return base + s->sh_addr;
}

/*
 * Every address the runtime will read must lie in the file, each name end
 * there, each piece of code be code the file holds: an address outside
 * is another module's (or an exported symbol a shared object resolves
 * only when it is loaded), which this process does not have.  And each
 * switch's value must be the file's.
 */
static void check_addresses(void)
{
	const char *outside = "defined in another module, or exported by a shared object "
			      "(which resolves it only when loaded)";

	for (const struct mv_desc_var *v = mod.var; v < mod.var_end; v++) {
		const char *name = mv_desc_var_name(v);
		uint32_t type;

		if (!string_in_file(name))
			fail("a switch record's name lies outside the file");
		if (v->width != 1 && v->width != 2 && v->width != 4 && v->width != 8)
			fail("switch %s: its record is corrupt", name);
		if (!in_file(mv_desc_var_addr(v), v->width))
			fail("switch %s is %s; %s commits only what one file holds", name, outside, prog);
		type = relocated_at(vaddr_of(mv_desc_var_addr(v)), v->width);
		if (type == R_COPY_HERE)
			fail("switch %s is another module's, copied into this one when it is "
			     "loaded: its value is not in the file", name);
		if (type)
			fail("switch %s gets its value from a relocation (type %u) when the file is "
			     "loaded, not from the file: %s cannot tell it", name, type, prog);
	}
	for (const struct mv_desc_fn *f = mod.fn; f < mod.fn_end; f++) {
		const char *name = mv_desc_fn_name(f);
		const struct mv_desc_variant *vs = mv_desc_fn_variants(f);

		if (!string_in_file(name))
			fail("a function record's name lies outside the file");
		if (!in_file(mv_desc_fn_generic(f), 1) || !code_in_file(mv_desc_fn_entry(f), MV_ARCH_ENTRY_LEN))
			fail("function %s is %s; %s commits only what one file holds", name, outside, prog);
		if (f->n_variants > (size_t)(base + hi - (const uint8_t *)vs) / sizeof *vs ||
		    (f->n_variants && !in_file(vs, f->n_variants * sizeof *vs)))
			fail("function %s: its variant records lie outside the file", name);
		for (uint32_t k = 0; k < f->n_variants; k++) {
			const struct mv_desc_guard *g = mv_desc_variant_guards(&vs[k]);
			const struct mv_desc_reloc *r = mv_desc_variant_relocs(&vs[k]);

			if (!code_in_file(mv_desc_variant_body(&vs[k]), 1) ||
			    (vs[k].inlining == MV_INLINE_OK &&
			     !code_in_file(mv_desc_variant_body(&vs[k]), (size_t)vs[k].copy_off + vs[k].copy_len + 1)) ||
			    vs[k].n_guards > (size_t)(base + hi - (const uint8_t *)g) / sizeof *g ||
			    (vs[k].n_guards && !in_file(g, vs[k].n_guards * sizeof *g)) ||
			    vs[k].n_relocs > (size_t)(base + hi - (const uint8_t *)r) / sizeof *r ||
			    (vs[k].n_relocs && !in_file(r, vs[k].n_relocs * sizeof *r)))
				fail("function %s: a variant record is corrupt or lies outside the file", name);
			for (uint32_t j = 0; j < vs[k].n_guards; j++)
				if (!in_file(mv_desc_guard_var(&vs[k], &g[j]), 1))
					fail("function %s reads a switch %s; %s commits only what one "
					     "file holds", name, outside, prog);
		}
	}
	for (const struct mv_desc_site *s = mod.site; s < mod.site_end; s++) {
		const uint8_t *at = mv_desc_site_addr(s);

		if (s->pad > MV_INLINE_MAX || !code_in_file(at - s->pad, s->pad + MV_ARCH_SITE_MIN))
			fail("a call site record (at %#lx) is corrupt or lies outside the file's code",
			     (unsigned long)vaddr_of(at));
		if (!in_file(mv_desc_site_callee(s), 1))
			fail("the call site at %#lx calls a function or switch %s; %s commits only "
			     "what one file holds", (unsigned long)vaddr_of(at), outside, prog);
	}
}

void register_records(void)
{
	const Elf64_Shdr *sec_var = find_section(MV_SECTION_VAR);
	const Elf64_Shdr *sec_fn = find_section(MV_SECTION_FN);
	const Elf64_Shdr *sec_site = find_section(MV_SECTION_SITE);
	int err;

	mod.var = records(sec_var, sizeof *mod.var, (const void **)&mod.var_end);
	mod.fn = records(sec_fn, sizeof *mod.fn, (const void **)&mod.fn_end);
	mod.site = records(sec_site, sizeof *mod.site, (const void **)&mod.site_end);
	check_addresses();
	err = __multiverse_register_module(MV_DESCRIPTOR_VERSION, MV_ARCH_MACHINE,
					   mod.var, mod.var_end, mod.fn, mod.fn_end,
					   mod.site, mod.site_end);
	if (err)
		fail("the runtime does not take its records: %s", multiverse_last_error());
}

void *switch_named(const char *name)
{
	for (const struct mv_desc_var *v = mod.var; v < mod.var_end; v++)
		if (!strcmp(mv_desc_var_name(v), name)) {
			if (v->flags & MV_VAR_FNPTR)
				fail("switch %s is a function pointer; %s commits functions only",
				     name, prog);
			return mv_desc_var_addr(v);
		}
	fail("has no switch named %s", name);
	return 0;
}

/* Whether a function record says the file was precommitted before. */
int precommitted_already(void)
{
	const Elf64_Shdr *s = find_section(MV_SECTION_FN);
	const struct mv_desc_fn *f = at_offset(s->sh_offset, s->sh_size, "function records");

	if (s->sh_type == SHT_NOBITS)
		fail("its section %s holds no bytes", MV_SECTION_FN);
	for (size_t i = 0; i < s->sh_size / sizeof *f; i++)
		if (f[i].flags & MV_FN_PRECOMMITTED)
			return 1;
	return 0;
}
