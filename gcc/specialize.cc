/*
 * Variant generation.  Runs once SSA form is built and before any
 * optimization, so that constant propagation, folding and dead-code
 * elimination all work on the specialized bodies.
 *
 * For each multiversed function defined in the unit:
 *   1. find the integer switches it reads; a switch it writes or whose
 *      address it takes is not specialized (warning);
 *   2. compute each switch's domain (domain.cc); a tracked switch also gets
 *      a "dynamic" choice, giving partially specialized variants;
 *   3. clone the body once per assignment of the cross product and replace
 *      every load of an assigned switch by the constant.
 *
 * The generic is put in a text section of its own: the assembler then
 * emits every tail call to it as a 5-byte jmp rel32 (within one section it
 * may shorten the jmp to 2 bytes, which could not be patched to reach a
 * variant).
 */
#include "multiverse.h"

#include <algorithm>
#include <set>

namespace {

struct switch_use {
	tree var;
	std::vector<mv_value> domain;
	bool tracked;
};

/* Calls fn on every VAR_DECL operand of s that is an integer switch,
 * telling whether it is the stored-to operand or has its address taken. */
template <typename F>
void for_each_switch_ref(gimple *s, F fn)
{
	for (unsigned i = 0; i < gimple_num_ops(s); i++) {
		tree op = gimple_op(s, i);
		if (!op)
			continue;
		bool is_lhs = i == 0 && is_gimple_assign(s);
		if (TREE_CODE(op) == ADDR_EXPR) {
			tree base = get_base_address(TREE_OPERAND(op, 0));
			if (base && mv_is_int_switch(base))
				fn(base, false, true);
			continue;
		}
		tree base = get_base_address(op);
		if (base && mv_is_int_switch(base))
			fn(base, is_lhs, false);
	}
	if (gasm *as = dyn_cast<gasm *>(s)) {
		for (unsigned i = 0; i < gimple_asm_noutputs(as); i++) {
			tree base = get_base_address(
				TREE_VALUE(gimple_asm_output_op(as, i)));
			if (base && mv_is_int_switch(base))
				fn(base, true, false);
		}
	}
}

/* The switches fn reads and may specialize, with their domains. */
std::vector<switch_use> analyze(cgraph_node *node)
{
	function *fn = DECL_STRUCT_FUNCTION(node->decl);
	std::vector<tree> read;
	std::set<tree> excluded;
	basic_block bb;

	FOR_EACH_BB_FN(bb, fn) {
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
		     gsi_next(&gsi)) {
			gimple *s = gsi_stmt(gsi);
			for_each_switch_ref(s, [&](tree var, bool write, bool addr) {
				if ((write || addr) && !excluded.count(var)) {
					excluded.insert(var);
					warning_at(gimple_location(s), 0,
						   write ? "%qD writes multiverse switch %qD; "
							   "the switch is not specialized in "
							   "this function"
							 : "%qD takes the address of multiverse "
							   "switch %qD; the switch is not "
							   "specialized in this function",
						   node->decl, var);
				}
				if (std::find(read.begin(), read.end(), var) == read.end())
					read.push_back(var);
			});
		}
	}

	std::vector<switch_use> uses;
	for (tree var : read) {
		if (excluded.count(var))
			continue;
		uses.push_back({ var, mv_domain(var, fn), mv_is_tracked(var) });
		mv_keep(var);
	}
	return uses;
}

/* Replaces every plain load of var in fn's body by value. */
void substitute(tree decl, tree var, mv_value value)
{
	function *fn = DECL_STRUCT_FUNCTION(decl);
	push_cfun(fn);
	basic_block bb;
	FOR_EACH_BB_FN(bb, fn) {
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
		     gsi_next(&gsi)) {
			gimple *s = gsi_stmt(gsi);
			if (!gimple_assign_single_p(s) || gimple_assign_rhs1(s) != var)
				continue;
			tree lhs = gimple_assign_lhs(s);
			tree c = fold_convert(TREE_TYPE(lhs),
					      build_int_cst_type(TREE_TYPE(var), value));
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
		warning_at(DECL_SOURCE_LOCATION(decl), 0,
			   "%qD would need %lu variants, more than the limit of "
			   "%u (plugin argument %<max-variants%>); only the "
			   "generic is used", decl, n, mv_max_variants);
		return;
	}
	if (!tree_versionable_function_p(decl)) {
		warn_not_versionable(decl);
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
			if (choice < u.domain.size())
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
			return;
		}
		tree cd = clone->decl;
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
			substitute(cd, r.var, r.low);
		mv_keep(cd);
		mv_find_function(decl)->variants.push_back({ cd, { clause } });
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
