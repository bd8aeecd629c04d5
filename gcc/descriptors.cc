/* SPDX-License-Identifier: MIT */
/*
 * Descriptor output, in the layout of common/descriptor.h, as assembler
 * data at the end of the unit (every function has been through final by
 * then, so the entry and site labels exist).  Everything goes inside
 * .pushsection/.popsection so GCC's idea of the current section stays
 * true for what it emits afterwards (debug info, for one).  An address
 * is written as its distance from the field, which the static link
 * resolves and no loader relocates, wherever static_link_resolves()
 * allows (common/descriptor.h, MV_DESC_REF).
 *
 * A function in a COMDAT group (a C++ inline function, a template's
 * instance) is kept from one unit only, and the linker drops the other
 * units' copies, variants included.  What describes such a function, and
 * the call sites in it, goes into sections of its group, so that it is
 * kept or dropped with the code it names.
 *
 * Each unit that uses the attribute also gets a constructor that registers
 * its module (the executable or shared object it is linked into) with the
 * runtime, through the module's hidden __start_/__stop_ section bounds,
 * and a destructor that unregisters it when the module is unloaded.  In
 * the kernel, which finds the sections itself, the unit says instead
 * which descriptor version and machine its records are for
 * (MV_SECTION_VERSION).
 */
#include "multiverse.h"
#include "arch.h"
#include "descriptor.h"
#include "debug.h"          /* dwarf2out_do_cfi_asm */

#include <algorithm>

static_assert(sizeof(struct mv_desc_var) == 32, "descriptor layout");
static_assert(sizeof(struct mv_desc_fn) == 40, "descriptor layout");
static_assert(sizeof(struct mv_desc_variant) == 40, "descriptor layout");
static_assert(sizeof(struct mv_desc_guard) == 24, "descriptor layout");
static_assert(sizeof(struct mv_desc_site) == 24, "descriptor layout");
static_assert(sizeof(struct mv_desc_reloc) == 8, "descriptor layout");

namespace {

FILE *out;
unsigned next_id;

void sym(const_tree decl)
{
	assemble_name(out, IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(
		const_cast<tree>(decl))));
}

std::string assembler_name(const_tree decl)
{
	const char *name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(const_cast<tree>(decl)));
	return targetm.strip_name_encoding(name);
}

/* The address of decl, as a distance if relative. */
void quad_sym(const_tree decl, bool relative)
{
	fputs("\t.quad\t", out);
	sym(decl);
	fputs(relative ? " - .\n" : "\n", out);
}

/*
 * Whether a distance to decl names the address every other record and
 * module knows it by, and the static link resolves it.  It binds within
 * the module, and in position-independent code it is static or hidden:
 * a global symbol of a shared object stays the dynamic linker's even
 * where the code binds it locally (-fno-semantic-interposition, or
 * -fPIE code linked with -shared), and its address may be a program's
 * PLT entry (pointer equality); the x86-64 dynamic linker applies no
 * PC-relative relocation, and the AArch64 static linker would bind the
 * distance to the module's own definition.
 */
bool static_link_resolves(tree decl)
{
	return targetm.binds_local_p(decl) &&
	       (!flag_pic || !TREE_PUBLIC(decl) || DECL_VISIBILITY(decl) == VISIBILITY_HIDDEN ||
		DECL_VISIBILITY(decl) == VISIBILITY_INTERNAL);
}

/* The address of a switch: its symbol, or its object's plus the offset;
 * as a distance if relative. */
void quad_switch(const_tree sw, bool relative)
{
	HOST_WIDE_INT offset;
	tree object = mv_switch_object(sw, &offset);
	fputs("\t.quad\t", out);
	sym(object);
	if (offset)
		fprintf(out, "+" HOST_WIDE_INT_PRINT_DEC, offset);
	fputs(relative ? " - .\n" : "\n", out);
}

/* Whether the static link can resolve a distance to switch sw. */
bool switch_resolves(const_tree sw)
{
	HOST_WIDE_INT offset;
	return static_link_resolves(mv_switch_object(sw, &offset));
}

/* The COMDAT group of a function, or NULL. */
const char *group_of(tree decl)
{
	symtab_node *n = symtab_node::get(decl);
	return n && n->get_comdat_group() ? IDENTIFIER_POINTER(n->get_comdat_group_id()) : NULL;
}

void push_section(const char *name, const char *flags, const char *group)
{
	if (group)
		fprintf(out, "\t.pushsection %s,\"%sG\",@progbits,%s,comdat\n",
			name, flags, group);
	else
		fprintf(out, "\t.pushsection %s,\"%s\"\n", name, flags);
}

/* Emits name as a string and returns its label number. */
unsigned string_label(const char *name, const char *group = NULL)
{
	unsigned id = next_id++;
	push_section(".rodata.multiverse", "a", group);
	fprintf(out, ".LMVN%u:\n\t.string \"", id);
	/* C++ names may hold quotes and backslashes (h<'\\'>, operator"") */
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c == '"' || *c == '\\' || *c < 0x20 || *c >= 0x7f)
			fprintf(out, "\\%03o", *c);
		else
			fputc(*c, out);
	fputs("\"\n\t.popsection\n", out);
	return id;
}

void emit_var(tree var)
{
	unsigned name = string_label(mv_switch_name(var));
	tree type = TREE_TYPE(var);
	unsigned flags = 0;
	if (POINTER_TYPE_P(type))
		flags |= MV_VAR_FNPTR;
	else if (!TYPE_UNSIGNED(type))
		flags |= MV_VAR_SIGNED;
	if (mv_is_tracked(mv_switch_decl(var)))
		flags |= MV_VAR_TRACKED;
	bool local = switch_resolves(var);
	flags |= MV_VAR_NAME_RELATIVE | (local ? MV_VAR_ADDR_RELATIVE : 0u);
	fprintf(out, "\t.pushsection " MV_SECTION_VAR ",\"aw\"\n\t.balign 8\n");
	quad_switch(var, local);
	fprintf(out, "\t.quad\t.LMVN%u - .\n\t.long\t%u, %u\n\t.quad\t0\n"
		"\t.popsection\n", name,
		(unsigned)tree_to_uhwi(TYPE_SIZE_UNIT(type)), flags);
}

/* Emits the relocations of an inlinable variant, if it has any, and
 * returns their label (0: none). */
unsigned emit_relocs(const mv_inline_info &in)
{
	if (in.why != MV_INLINE_OK || in.relocs.empty())
		return 0;
	unsigned id = next_id++;
	fprintf(out, "\t.balign 4\n.LMVR%u:\n", id);
	for (const mv_inline_reloc &r : in.relocs)
		fprintf(out, "\t.long\t%s%+d-%s, %u\n", r.label.c_str(), r.field,
			in.start.c_str(), r.kind);
	return id;
}

/* The inlining half of a variant record (common/descriptor.h), with its
 * flags (MV_VARIANT_RELATIVE: relocs as a distance); body is the
 * assembler name of the record's body. */
void emit_inline(const std::string &body, const mv_inline_info &in, unsigned relocs,
		 unsigned flags)
{
	if (in.why != MV_INLINE_OK) {
		fprintf(out, "\t.short\t0, 0\n\t.quad\t0\n\t.long\t0\n\t.short\t%u, %u\n",
			in.why, flags);
		return;
	}
	fputs("\t.short\t", out);
	fprintf(out, "%s-%s, %s-%s\n", in.start.c_str(), body.c_str(),
		in.end.c_str(), in.start.c_str());
	if (relocs)
		fprintf(out, "\t.quad\t.LMVR%u%s\n", relocs,
			flags & MV_VARIANT_RELATIVE ? " - ." : "");
	else
		fputs("\t.quad\t0\n", out);
	fprintf(out, "\t.long\t%u\n\t.short\t%u, %u\n", (unsigned)in.relocs.size(),
		MV_INLINE_OK, flags);
}

/* Emits the variant records of f (one per clause) and returns the label
 * of the array, with their number in *count. */
unsigned emit_variants(const mv_function &f, unsigned *count)
{
	struct record { tree body; unsigned guards, n_guards, relocs, flags; };
	std::vector<record> records;
	push_section(".data.rel.ro.multiverse", "aw", group_of(f.decl));
	fputs("\t.balign 8\n", out);
	for (const mv_variant &v : f.variants) {
		if (!TREE_ASM_WRITTEN(v.decl))
			continue;
		unsigned relocs = emit_relocs(mv_inlinable[v.decl]);
		fputs("\t.balign 8\n", out);
		for (const mv_clause &c : v.clauses) {
			unsigned id = next_id++;
			bool vars = true;
			for (const mv_range &r : c)
				vars &= switch_resolves(r.var);
			fprintf(out, ".LMVG%u:\n", id);
			for (const mv_range &r : c) {
				quad_switch(r.var, vars);
				fprintf(out, "\t.quad\t%lld, %lld\n",
					(long long)r.low, (long long)r.high);
			}
			unsigned flags = (static_link_resolves(v.decl) ? MV_VARIANT_RELATIVE : 0u) |
					 (vars ? MV_VARIANT_VARS_RELATIVE : 0u);
			records.push_back({ v.decl, id, (unsigned)c.size(), relocs, flags });
		}
	}
	unsigned id = next_id++;
	fprintf(out, ".LMVV%u:\n", id);
	for (const record &r : records) {
		bool relative = r.flags & MV_VARIANT_RELATIVE;
		quad_sym(r.body, relative);
		fprintf(out, "\t.quad\t.LMVG%u%s\n\t.long\t%u\n", r.guards,
			relative ? " - ." : "", r.n_guards);
		emit_inline(assembler_name(r.body), mv_inlinable[r.body], r.relocs, r.flags);
	}
	fputs("\t.popsection\n", out);
	*count = records.size();
	return id;
}

/* The one variant record of a plain function (MV_FN_PLAIN): its own
 * code, from its entry patch area, guarded by nothing. */
unsigned emit_plain(const mv_function &f)
{
	const mv_inline_info &in = mv_inlinable[f.decl];
	std::string body = ".LMVE" + std::to_string(f.entry_label);
	push_section(".data.rel.ro.multiverse", "aw", group_of(f.decl));
	unsigned relocs = emit_relocs(in);
	unsigned id = next_id++;
	fprintf(out, "\t.balign 8\n.LMVV%u:\n\t.quad\t%s - .\n\t.quad\t0\n\t.long\t0\n",
		id, body.c_str());
	emit_inline(body, in, relocs, MV_VARIANT_RELATIVE);
	fputs("\t.popsection\n", out);
	return id;
}

void emit_function(const mv_function &f)
{
	const char *group = group_of(f.decl);
	unsigned name = string_label(mv_name(f.decl), group);
	unsigned count = 1;
	bool plain = mv_is_plain(f);
	unsigned variants = plain ? emit_plain(f) : emit_variants(f, &count);
	bool local = static_link_resolves(f.decl);
	push_section(MV_SECTION_FN, "aw", group);
	fputs("\t.balign 8\n", out);
	quad_sym(f.decl, local);
	fprintf(out, "\t.quad\t.LMVN%u - .\n\t.quad\t.LMVE%u - .\n\t.quad\t.LMVV%u - .\n"
		"\t.long\t%u, %u\n\t.popsection\n", name, f.entry_label,
		variants, count, (f.entry_after_pad ? MV_FN_ENTRY_AFTER_PAD : 0u) |
		(f.entry_after_pad_nop ? MV_FN_ENTRY_AFTER_PAD_NOP : 0u) |
		(plain ? MV_FN_PLAIN : 0u) | MV_FN_RELATIVE |
		(local ? MV_FN_GENERIC_RELATIVE : 0u));
}

void emit_sites(void)
{
	/* the section, for its bounds, even if every site is in a group */
	fprintf(out, "\t.pushsection " MV_SECTION_SITE ",\"aw\"\n\t.balign 8\n"
		"\t.popsection\n");
	/* one section directive per run of sites in the same group */
	bool open = false;
	const char *current = NULL;
	for (const mv_site &s : mv_sites) {
		const char *group = group_of(s.in);
		if (!open || (group ? !current || strcmp(group, current) : current != NULL)) {
			if (open)
				fputs("\t.popsection\n", out);
			push_section(MV_SECTION_SITE, "aw", group);
			fputs("\t.balign 8\n", out);
			open = true;
			current = group;
		}
		/* relative, where the static link can resolve it: no load-time
		 * relocation (common/descriptor.h) */
		bool fn = TREE_CODE(s.callee) == FUNCTION_DECL;
		HOST_WIDE_INT offset = 0;
		tree callee = fn ? s.callee : mv_switch_object(s.callee, &offset);
		bool local = static_link_resolves(callee);
		fprintf(out, "\t.quad\t.LMVS%u - .\n\t.quad\t", s.label);
		sym(callee);
		if (offset)
			fprintf(out, "%+" HOST_WIDE_INT_PRINT "d", offset);
		fprintf(out, "%s\n\t.long\t%u, %u\n", local ? " - ." : "", s.pad,
			(s.in_probe_variant ? MV_SITE_IN_PROBE_VARIANT : 0u) |
			MV_SITE_SITE_RELATIVE | (local ? MV_SITE_CALLEE_RELATIVE : 0u));
	}
	if (open)
		fputs("\t.popsection\n", out);
	for (const mv_site &s : mv_sites)
		fprintf(out, "\t.set\t.LMVP%u, %u\n", s.label, s.pad);
}

tree hidden_extern_addr(const char *name)
{
	tree d = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier(name),
			    char_type_node);
	TREE_PUBLIC(d) = 1;
	DECL_EXTERNAL(d) = 1;
	DECL_ARTIFICIAL(d) = 1;
	TREE_USED(d) = 1;
	DECL_VISIBILITY(d) = VISIBILITY_HIDDEN;
	DECL_VISIBILITY_SPECIFIED(d) = 1;
	return build_fold_addr_expr(d);
}

} // namespace

/* A call of fn(version, machine, the module's section bounds); with an
 * optional runtime, a weak reference and the call only if fn is there. */
static tree module_call(const char *fn)
{
	tree p = const_ptr_type_node;
	tree type = build_function_type_list(integer_type_node,
		unsigned_type_node, unsigned_type_node, p, p, p, p, p, p, NULL_TREE);
	tree decl = build_fn_decl(fn, type);
	if (mv_optional_runtime)
		declare_weak(decl);
	tree args[2 + MV_MODULE_BOUND_COUNT] = {
		build_int_cst(unsigned_type_node, MV_DESCRIPTOR_VERSION),
		build_int_cst(unsigned_type_node, mv_arch_machine),
	};
	for (unsigned i = 0; i < MV_MODULE_BOUND_COUNT; i++)
		args[2 + i] = hidden_extern_addr(mv_module_bounds[i]);
	tree call = build_call_expr_loc_array(UNKNOWN_LOCATION, decl, 2 + MV_MODULE_BOUND_COUNT, args);
	if (!mv_optional_runtime)
		return call;
	tree present = build2(NE_EXPR, boolean_type_node,
			      build_fold_addr_expr(decl), null_pointer_node);
	return build3(COND_EXPR, void_type_node, present, call, NULL_TREE);
}

const char *const mv_module_bounds[MV_MODULE_BOUND_COUNT] = MV_MODULE_BOUNDS;

#define MV_CDTOR_PRIORITY (MAX_RESERVED_INIT_PRIORITY + 1)

/* Whether this unit writes the module's constructor and destructor in
 * assembler (write_module_cdtors) rather than having GCC build its own. */
static bool cdtors_in_asm;

/* Registration runs early, so that user constructors may already commit;
 * unregistration late (destructors run in reverse priority order), after
 * the module's own destructors and while its code is still mapped. */
void mv_build_module_ctor(void)
{
	if (mv_kernel)          /* the kernel registers vmlinux and modules */
		return;
	if ((cdtors_in_asm = mv_arch_module_call_ok()))
		return;
	cgraph_build_static_cdtor('I', module_call("__multiverse_register_module"),
				  MV_CDTOR_PRIORITY);
	cgraph_build_static_cdtor('D', module_call("__multiverse_unregister_module"),
				  MV_CDTOR_PRIORITY);
}

/*
 * One constructor and one destructor per module, not one per unit: every
 * unit passes the same bounds, so a single call does.  Each unit writes
 * the pair, code and .init_array/.fini_array entries, into one COMDAT
 * group, and the linker keeps the first copy in the module.  The group's
 * name says the descriptor version and whether the runtime is optional,
 * so that units that differ there keep their own (the runtime then
 * refuses the other version, and registers a module once, however many
 * calls come in).  The Clang plugin names its group the same.
 */
static void write_module_cdtors(void)
{
	char group[64];

	snprintf(group, sizeof group, "__multiverse_module_v%u%s", MV_DESCRIPTOR_VERSION,
		 mv_optional_runtime ? "_optional" : "");
	for (const char *b : mv_module_bounds)
		fprintf(out, "\t.hidden\t%s\n", b);
	for (int k = 0; k < 2; k++) {
		const char *fn = k ? "__multiverse_unregister_module" : "__multiverse_register_module";
		const char *array = k ? "fini" : "init";

		if (mv_optional_runtime)
			fprintf(out, "\t.weak\t%s\n", fn);
		fprintf(out, "\t.pushsection\t.text.%s.%s,\"axG\",%%progbits,%s,comdat\n"
			"\t.p2align\t4\n", group, array, group);
		/* the group's name as a symbol too, as Clang's has it */
		if (!k)
			fprintf(out, "\t.weak\t%s\n\t.hidden\t%s\n\t.type\t%s, %%function\n%s:\n",
				group, group, group, group);
		fprintf(out, ".LMVM%s:\n", array);
		mv_arch_write_module_call(out, fn, mv_optional_runtime, dwarf2out_do_cfi_asm());
		fprintf(out, "\t.popsection\n"
			"\t.pushsection\t.%s_array.%05d,\"awG\",%%%s_array,%s,comdat\n"
			"\t.balign\t8\n\t.dc.a\t.LMVM%s\n\t.popsection\n",
			array, MV_CDTOR_PRIORITY, array, group, array);
	}
}

void mv_emit_descriptors(void *, void *)
{
	if (!mv_unit_uses_multiverse || seen_error() || !asm_out_file)
		return;
	out = asm_out_file;

	/* Switches: those defined here, also as members of the objects
	 * defined here, and those the records refer to. */
	std::vector<tree> vars;
	varpool_node *vn;
	FOR_EACH_VARIABLE(vn) {
		if (!TREE_ASM_WRITTEN(vn->decl))
			continue;
		if (mv_has_attribute(vn->decl))
			vars.push_back(vn->decl);
		else if (mv_is_switch_object(vn->decl))
			mv_member_switches(vn->decl, vars);
	}
	for (const mv_function &f : mv_functions)
		for (const mv_variant &v : f.variants)
			for (const mv_clause &c : v.clauses)
				for (const mv_range &r : c)
					vars.push_back(r.var);
	for (const mv_site &s : mv_sites)
		if (TREE_CODE(s.callee) != FUNCTION_DECL)
			vars.push_back(s.callee);

	std::sort(vars.begin(), vars.end(), [](tree a, tree b) {
		HOST_WIDE_INT at, bt;
		unsigned au = DECL_UID(mv_switch_object(a, &at));
		unsigned bu = DECL_UID(mv_switch_object(b, &bt));
		return au != bu ? au < bu : at < bt;
	});
	vars.erase(std::unique(vars.begin(), vars.end()), vars.end());

	fprintf(out, "\t.pushsection " MV_SECTION_VAR ",\"aw\"\n\t.balign 8\n"
		"\t.popsection\n");
	for (tree v : vars)
		emit_var(v);
	fprintf(out, "\t.pushsection " MV_SECTION_FN ",\"aw\"\n\t.balign 8\n"
		"\t.popsection\n");
	for (const mv_function &f : mv_functions)
		if (TREE_ASM_WRITTEN(f.decl) && f.entry_label)
			emit_function(f);
	mv_choose_padding();
	emit_sites();
	if (mv_kernel)
		fprintf(out, "\t.pushsection " MV_SECTION_VERSION ",\"a\"\n\t.balign 4\n"
			"\t.long\t%u, %u\n\t.popsection\n", MV_DESCRIPTOR_VERSION,
			mv_arch_machine);
	mv_write_stubs(out);
	if (cdtors_in_asm)
		write_module_cdtors();
	mv_write_report();
}
