/* SPDX-License-Identifier: MIT */
/*
 * Variant generation.  Runs once SSA form is built and before any
 * optimization, so that constant propagation, folding and dead-code
 * elimination all work on the specialized bodies.
 *
 * For each multiversed function defined in the unit:
 *   1. find the integer switches it reads, global or member ones
 *      (members.cc), and the function-pointer switches it compares with
 *      NULL (probes.cc); a switch it writes or whose address it takes is
 *      not specialized (warning);
 *   2. compute each switch's domain (domain.cc; a probe's is NULL and
 *      not NULL); a tracked switch also gets a "dynamic" choice, giving
 *      partially specialized variants;
 *   3. clone the body once per assignment of the cross product and replace
 *      every load of an assigned switch by the constant, or a probe's
 *      NULL tests by their outcome.
 *
 * The generic is put in a text section of its own: the assembler then
 * emits every tail call to it as a 5-byte jmp rel32 (within one section it
 * may shorten the jmp to 2 bytes, which could not be patched to reach a
 * variant).
 */
#include "multiverse.h"
#include "json-string.h"

#include <algorithm>
#include <set>

/* The note that goes with a diagnostic about a switch: where it is. */
void mv_note_switch_declared(tree sw)
{
	tree d = mv_switch_decl(sw);
	if (TREE_CODE(d) == FIELD_DECL)
		inform(DECL_SOURCE_LOCATION(d), "switch member %qD declared "
		       "here", d);
	else
		inform(DECL_SOURCE_LOCATION(d), "switch %qD declared here", d);
}

namespace {

struct switch_use {
	tree var;
	std::vector<mv_value> domain;
	bool tracked;
	bool probe;          /* domain {0, 1}: NULL, not NULL */
};

/* Part of a global object: bytes [from, to), or all of it when to < 0. */
struct region {
	tree object;
	HOST_WIDE_INT from, to;
};

/* The part of a named global object that ref is, if it is one. */
bool region_of(tree ref, region *out)
{
	poly_int64 bits, size, max;
	bool reverse;
	tree base = get_ref_base_and_extent(ref, &bits, &size, &max, &reverse);
	if (!base || !VAR_P(base))
		return false;
	HOST_WIDE_INT b, m;
	out->object = base;
	if (bits.is_constant(&b) && max.is_constant(&m) && m >= 0) {
		out->from = b / BITS_PER_UNIT;
		out->to = (b + m + BITS_PER_UNIT - 1) / BITS_PER_UNIT;
	} else {
		out->from = 0;
		out->to = -1;
	}
	return true;
}

bool overlaps(const region &r, tree sw)
{
	HOST_WIDE_INT at;
	tree object = mv_switch_object(sw, &at);
	HOST_WIDE_INT end = at + tree_to_shwi(TYPE_SIZE_UNIT(TREE_TYPE(sw)));
	return r.object == object && (r.to < 0 || (at < r.to && end > r.from));
}

const char through_pointer[] = "through a pointer, which may or may not "
			       "point to an object with static storage duration";

/* Why a read of a member switch is not a switch read, or NULL when it is
 * no concern of the user's (a local object of the type). */
const char *why_not_switch(tree ref)
{
	tree base = get_base_address(ref);
	if (!base)
		return NULL;
	if (TREE_CODE(base) == MEM_REF || TREE_CODE(base) == TARGET_MEM_REF)
		return through_pointer;
	if (VAR_P(base) && DECL_THREAD_LOCAL_P(base))
		return "of a thread-local object";
	if (VAR_P(base) && mv_is_switch_object(base))
		return "at an array index known only at run time";
	return NULL;
}

/* Whether s only compares its operands: an address compared (is p the
 * static object?) goes nowhere, so it cannot lead to a write. */
bool compares(gimple *s)
{
	if (gimple_code(s) == GIMPLE_COND)
		return true;
	return is_gimple_assign(s) &&
	       TREE_CODE_CLASS(gimple_assign_rhs_code(s)) == tcc_comparison;
}

/* Whether every use of the pointer name loads what it points to. */
bool only_loaded(tree name)
{
	use_operand_p use;
	imm_use_iterator it;
	bool any = false;

	FOR_EACH_IMM_USE_FAST(use, it, name) {
		gimple *u = USE_STMT(use);
		if (is_gimple_debug(u))
			continue;
		if (!gimple_assign_single_p(u) || TREE_CODE(gimple_assign_rhs1(u)) != MEM_REF ||
		    TREE_OPERAND(gimple_assign_rhs1(u), 0) != name)
			return false;
		any = true;
	}
	return any;
}

/* The integer switches fn reads, and the probes it tests, that it may
 * specialize, with their domains.
 * A switch fn writes, or of which it takes the address or that of an
 * enclosing object other than to compare it, is not specialized
 * (warning). */
std::vector<switch_use> analyze(cgraph_node *node)
{
	function *fn = DECL_STRUCT_FUNCTION(node->decl);
	std::vector<tree> read;
	std::vector<std::pair<region, gimple *>> written, taken;
	/* reads left dynamic; one through a pointer is told about unless fn
	 * also reads the member by the name of an object: then it chose the
	 * run-time read for other objects (p == &cfg ? cfg.on : p->on) */
	std::vector<std::pair<tree, gimple *>> dynamic;   /* COMPONENT_REFs */
	basic_block bb;

	std::set<tree> not_probes, untraced;
	auto specializable = [&](tree sw) {
		if (INTEGRAL_TYPE_P(TREE_TYPE(sw)) ||
		    std::find(read.begin(), read.end(), sw) != read.end())
			return true;
		if (not_probes.count(sw))
			return false;
		/* an untraced probe is read all the same, so that a write of
		 * it gets the warning; it is left unspecialized below */
		enum mv_probe_use use = mv_probe_use(sw, fn);
		if (use == MV_PROBE_UNTRACED)
			untraced.insert(sw);
		if (use != MV_PROBE_NONE)
			return true;
		not_probes.insert(sw);
		return false;
	};
	auto note_read = [&](tree op, gimple *s) {
		tree sw = mv_switch_of(op);
		if (sw && specializable(sw)) {
			if (std::find(read.begin(), read.end(), sw) == read.end())
				read.push_back(sw);
			return;
		}
		if (sw || TREE_CODE(op) != COMPONENT_REF ||
		    !mv_has_attribute(TREE_OPERAND(op, 1)))
			return;
		if (why_not_switch(op))
			dynamic.push_back({ op, s });
	};
	FOR_EACH_BB_FN(bb, fn) {
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
		     gsi_next(&gsi)) {
			gimple *s = gsi_stmt(gsi);
			tree lhs = gimple_get_lhs(s);
			region r;
			/* an _Atomic switch's read, or a sanitizer's read of a
			 * _Bool or enum switch as an integer */
			tree loaded = is_gimple_call(s) || (gimple_assign_single_p(s) &&
				TREE_CODE(gimple_assign_rhs1(s)) == MEM_REF) ?
				mv_switch_loaded(s) : NULL_TREE;
			if (loaded) {
				if (specializable(loaded) &&
				    std::find(read.begin(), read.end(), loaded) == read.end())
					read.push_back(loaded);
				continue;
			}
			/* the pointer atomic_load_explicit() and the others
			 * reach the switch through */
			enum mv_atomic_use atomic = mv_atomic_uses(s);
			if (atomic == MV_ATOMIC_LOADS)
				continue;
			for (unsigned i = 0; i < gimple_num_ops(s); i++) {
				tree op = gimple_op(s, i);
				if (!op)
					continue;
				if (TREE_CODE(op) == ADDR_EXPR) {
					/* an atomic operation on it writes it */
					if (!compares(s) && region_of(TREE_OPERAND(op, 0), &r))
						(atomic == MV_ATOMIC_WRITES || mv_atomic_builtin(s) ?
						 written : taken).push_back({ r, s });
					/* a sanitizer's checked read of a member
					 * through a pointer (p = &q->on; v = *p) is
					 * that read */
					else if (lhs && TREE_CODE(lhs) == SSA_NAME && only_loaded(lhs))
						note_read(TREE_OPERAND(op, 0), s);
				} else if (op == lhs) {
					if (region_of(op, &r))
						written.push_back({ r, s });
				} else {
					note_read(op, s);
				}
			}
			if (gasm *as = dyn_cast<gasm *>(s))
				for (unsigned i = 0; i < gimple_asm_noutputs(as); i++)
					if (region_of(TREE_VALUE(gimple_asm_output_op(as, i)), &r))
						written.push_back({ r, s });
		}
	}

	std::set<tree> named, told;                        /* FIELD_DECLs */
	for (tree sw : read)
		named.insert(mv_switch_decl(sw));
	for (auto &d : dynamic) {
		tree field = TREE_OPERAND(d.first, 1);
		if ((why_not_switch(d.first) == through_pointer && named.count(field)) ||
		    !told.insert(field).second)
			continue;
		auto_diagnostic_group g;
		if (warning_at(gimple_location(d.second), 0, "%qD reads multiverse "
			       "switch member %qD of %qT %s; only a read that names "
			       "an object with static storage duration, with "
			       "constant array indices, is specialized",
			       node->decl, field, DECL_CONTEXT(field),
			       why_not_switch(d.first)))
			inform(DECL_SOURCE_LOCATION(field), "switch member %qD "
			       "declared here", field);
		mv_find_function(node->decl)->dynamic.push_back(
			{ IDENTIFIER_POINTER(DECL_NAME(field)),
			  std::string("read ") + why_not_switch(d.first) });
	}

	std::vector<switch_use> uses;
	for (tree sw : read) {
		gimple *why = NULL;
		bool write = false;
		for (auto &w : written)
			if (!why && overlaps(w.first, sw))
				why = w.second, write = true;
		for (auto &t : taken)
			if (!why && overlaps(t.first, sw))
				why = t.second;
		if (why) {
			auto_diagnostic_group g;
			/* stdatomic.h's macros are in a system header, where
			 * warnings are not shown: the place they were used */
			location_t at = expansion_point_location_if_in_system_header(
				gimple_location(why));
			if (at == UNKNOWN_LOCATION)
				at = DECL_SOURCE_LOCATION(node->decl);
			if (warning_at(at, 0,
				       write ? "%qD writes multiverse switch %qs; the "
					       "switch is not specialized in this function"
					     : "%qD takes the address of multiverse switch "
					       "%qs; the switch is not specialized in this "
					       "function",
				       node->decl, mv_switch_name(sw)))
				mv_note_switch_declared(sw);
			mv_find_function(node->decl)->dynamic.push_back(
				{ mv_switch_name(sw), write ? "the function writes it"
					: "the function takes its address" });
			continue;
		}
		mv_function *mf = mv_find_function(node->decl);
		if (untraced.count(sw)) {
			mf->dynamic.push_back({ mv_switch_name(sw), MV_PROBE_UNTRACED_WHY });
			continue;
		}
		mf->specialized.push_back(mv_switch_name(sw));
		bool probe = mv_is_fnptr_switch(sw);
		uses.push_back({ sw, probe ? std::vector<mv_value>{ 0, 1 } : mv_domain(sw, fn),
				 mv_is_tracked(mv_switch_decl(sw)), probe });
		mf->domains.push_back(probe ? MV_PROBE_DOMAIN_JSON :
				      mv_json_values(uses.back().domain,
						     TYPE_UNSIGNED(TREE_TYPE(sw))));
		mv_keep(sw);
	}
	return uses;
}

/* Replaces every load of var in fn's body by value: a plain one, or an
 * _Atomic switch's __atomic_load_N call (a variant reads the switch
 * once, as a constant, whatever the order the load asked for). */
void substitute(tree decl, tree var, mv_value value)
{
	function *fn = DECL_STRUCT_FUNCTION(decl);
	push_cfun(fn);
	basic_block bb;
	FOR_EACH_BB_FN(bb, fn) {
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
		     gsi_next(&gsi)) {
			gimple *s = gsi_stmt(gsi);
			if (mv_switch_loaded(s) != var)
				continue;
			tree lhs = gimple_get_lhs(s);
			tree c = fold_convert(TREE_TYPE(lhs),
					      build_int_cst_type(TREE_TYPE(var), value));
			if (is_gimple_call(s)) {
				tree vdef = gimple_vdef(s);
				unlink_stmt_vdef(s);
				if (gsi_replace(&gsi, gimple_build_assign(lhs, c), true))
					gimple_purge_dead_eh_edges(gimple_bb(gsi_stmt(gsi)));
				if (vdef && TREE_CODE(vdef) == SSA_NAME)
					release_ssa_name_fn(fn, vdef);
				continue;
			}
			gimple_assign_set_rhs_from_tree(&gsi, c);
			update_stmt(gsi_stmt(gsi));
		}
	}
	pop_cfun();
}

/* Number of assignments, or 0 when it would exceed the cap. */
unsigned count_assignments(const std::vector<switch_use> &uses)
{
	unsigned long n = 1;
	for (const switch_use &u : uses) {
		n *= u.domain.size() + (u.tracked ? 1 : 0);
		if (n > mv_max_variants)
			return 0;
	}
	return n;
}

void give_own_section(tree decl)
{
	if (DECL_SECTION_NAME(decl))
		return;
	std::string name = ".text.multiverse.";
	name += IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl));
	set_decl_section_name(decl, name.c_str());
}

/* GCC refuses to copy some bodies; say why and what the user can change.
 * The program still works, on the generic. */
void warn_not_versionable(tree decl)
{
	function *fn = DECL_STRUCT_FUNCTION(decl);
	location_t loc = DECL_SOURCE_LOCATION(decl);
	auto_diagnostic_group d;

	if (fn->has_forced_label_in_static) {
		if (warning_at(loc, 0, "%qD cannot be specialized: it stores the "
			       "address of a local label in a static variable, "
			       "which GCC cannot remap in a copy; only the "
			       "generic is used", decl))
			inform(loc, "build the label table in an automatic "
			       "(non-static) array instead");
	} else if (fn->has_nonlocal_label) {
		if (warning_at(loc, 0, "%qD cannot be specialized: it receives "
			       "a non-local goto (from a nested function or "
			       "%<__builtin_setjmp%>); only the generic is used",
			       decl))
			inform(loc, "move the target label out of the "
			       "multiversed function");
	} else if (lookup_attribute("noclone", DECL_ATTRIBUTES(decl))) {
		warning_at(loc, 0, "%qD cannot be specialized: it has the "
			   "%<noclone%> attribute; only the generic is used",
			   decl);
	} else {
		warning_at(loc, 0, "%qD cannot be specialized: GCC cannot copy "
			   "its body; only the generic is used", decl);
	}
}

/* GCC compiles functions callees first, and functions that call each
 * other not, in the reverse of the order of its list of symbols, where
 * a clone goes first.  A variant moved to the list's end is compiled
 * before the functions that call its generic, which then know the size
 * of its calls' padding (mv_site_size_known) and emit it as such: a
 * much shorter text to assemble.  The list's end is found once per
 * pass: each clone moved there becomes it. */
symtab_node *list_end;

void compile_early(cgraph_node *clone)
{
	symtab_node *n = clone;
	if (!list_end || list_end->next)
		for (list_end = n; list_end->next; list_end = list_end->next)
			;
	symtab_node *tail = list_end;
	if (tail == n)
		return;
	if (n->previous)
		n->previous->next = n->next;
	else
		symtab->nodes = n->next;
	n->next->previous = n->previous;
	tail->next = n;
	n->previous = tail;
	n->next = NULL;
	list_end = n;
}

void specialize(cgraph_node *node)
{
	tree decl = node->decl;
	mv_functions.push_back({ decl, 0, false, {} });
	mv_keep(decl);

	std::vector<switch_use> uses = analyze(node);
	if (uses.empty())
		return;
	unsigned total = count_assignments(uses);
	if (total == 0) {
		unsigned long n = 1;
		for (const switch_use &u : uses)
			n *= u.domain.size() + (u.tracked ? 1 : 0);
		auto_diagnostic_group g;
		if (warning_at(DECL_SOURCE_LOCATION(decl), 0,
			       "%qD would need %lu variants, more than the limit of "
			       "%u (plugin argument %<max-variants%>); only the "
			       "generic is used", decl, n, mv_max_variants)) {
			for (const switch_use &u : uses) {
				tree d = mv_switch_decl(u.var);
				inform(DECL_SOURCE_LOCATION(d), "switch %qs, declared "
				       "here, has %u values in %qD%s",
				       mv_switch_name(u.var), (unsigned)u.domain.size(),
				       decl, u.tracked ? ", and is tracked (one more "
				       "variant each: unbound)" : "");
			}
			if (n <= 100000)
				inform(DECL_SOURCE_LOCATION(decl), "raise the limit with "
				       "%<-fplugin-arg-multiverse-max-variants=%lu%>, or "
				       "give a switch fewer values with "
				       "%<multiverse((\"values\", ...))%>", n);
			else
				inform(DECL_SOURCE_LOCATION(decl), "give a switch fewer "
				       "values with %<multiverse((\"values\", ...))%>: "
				       "the limit goes up to 100000 only");
		}
		mv_find_function(decl)->generic_only = "it would need " +
			std::to_string(n) + " variants, more than max-variants (" +
			std::to_string(mv_max_variants) + ")";
		return;
	}
	if (!tree_versionable_function_p(decl)) {
		warn_not_versionable(decl);
		mv_find_function(decl)->generic_only = "GCC cannot copy its body";
		return;
	}

	for (unsigned a = 0; a < total; a++) {
		/* Decode assignment a; choice == domain.size() means dynamic. */
		mv_clause clause;
		unsigned rest = a;
		for (const switch_use &u : uses) {
			unsigned width = u.domain.size() + (u.tracked ? 1 : 0);
			unsigned choice = rest % width;
			rest /= width;
			if (choice < u.domain.size() && u.probe)
				clause.push_back({ u.var, choice ? 1 : 0,
						   choice ? (mv_value)-1 : 0 });
			else if (choice < u.domain.size())
				clause.push_back({ u.var, u.domain[choice],
						   u.domain[choice] });
		}
		if (clause.empty())   /* all dynamic: that is the generic */
			continue;

		cgraph_node *clone = node->create_version_clone_with_body(
			vNULL, NULL, NULL, NULL, NULL, "multiverse");
		if (!clone) {
			warning_at(DECL_SOURCE_LOCATION(decl), 0,
				   "%qD could not be cloned; only the generic is "
				   "used", decl);
			mv_find_function(decl)->variants.clear();
			mv_find_function(decl)->generic_only = "it could not be cloned";
			return;
		}
		tree cd = clone->decl;
		/* A C++ inline function's or template instance's variants go
		 * with it into its COMDAT group: the linker keeps one unit's
		 * copy, and drops the others' variants and their call sites. */
		if (node->get_comdat_group())
			clone->add_to_same_comdat_group(node);
		/* The clone is reached only through the descriptors, which GCC
		 * does not see: keep it, and keep it a plain copy. */
		clone->force_output = true;
		/* Without callers a local clone would count as never executed
		 * and be optimized for size in .text.unlikely. */
		clone->local = false;
		DECL_PRESERVE_P(cd) = 1;
		DECL_ATTRIBUTES(cd) = remove_attribute("multiverse",
						       copy_list(DECL_ATTRIBUTES(cd)));
		for (const mv_range &r : clause)
			if (mv_is_fnptr_switch(r.var))
				mv_probe_fold(cd, r.var, r.low != 0);
			else
				substitute(cd, r.var, r.low);
		mv_keep(cd);
		compile_early(clone);
		mv_find_function(decl)->variants.push_back({ cd, { clause } });
		mv_find_function(decl)->made++;
	}

	/* Cloning is done; from now on GCC must not clone the generic. */
	DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("noclone"), NULL_TREE,
					  DECL_ATTRIBUTES(decl));
}

const pass_data specialize_data = {
	SIMPLE_IPA_PASS, "multiverse_specialize", OPTGROUP_NONE, TV_NONE,
	PROP_ssa, 0, 0, 0, TODO_update_ssa
};

struct specialize_pass : public simple_ipa_opt_pass {
	specialize_pass(gcc::context *ctxt)
		: simple_ipa_opt_pass(specialize_data, ctxt) {}

	unsigned int execute(function *) final override
	{
		if (!mv_unit_uses_multiverse || seen_error())
			return 0;
		std::vector<cgraph_node *> todo;
		list_end = NULL;
		cgraph_node *node;
		FOR_EACH_FUNCTION_WITH_GIMPLE_BODY(node)
			if (mv_is_function(node->decl) && !node->clone_of &&
			    !node->inlined_to)
				todo.push_back(node);
		for (cgraph_node *n : todo) {
			specialize(n);
			give_own_section(n->decl);  /* after cloning: not inherited */
		}
		mv_build_module_ctor();
		return 0;
	}
};

} // namespace

opt_pass *mv_make_specialize_pass(gcc::context *ctxt)
{
	return new specialize_pass(ctxt);
}
