/* SPDX-License-Identifier: MIT */
/*
 * Probes: a function-pointer switch that a multiversed function compares
 * with NULL, as in
 *
 *	__attribute__((multiverse)) void (*trace)(int);
 *	__attribute__((multiverse)) void work(int x)
 *	{
 *		if (trace)
 *			trace(x);
 *		...
 *	}
 *
 * The function gets a variant for "NULL", with neither test nor call, and
 * one for "not NULL", whose call stays a call through the switch: the
 * sites pass records it, and commit binds it to the pointer's value like
 * any other call through a function-pointer switch.  So only the
 * comparisons become constants, never the loads (a load replaced by a
 * constant would call address 0 or 1).
 *
 * A comparison counts when it is EQ or NE against a null pointer, of the
 * loaded value or of a conversion of it that keeps every bit: if (p),
 * if (!p), p == NULL, p != NULL, return p != NULL, (uintptr_t)p != 0.  The loaded value must go nowhere
 * else than into such tests and into the called address of calls, so
 * that every call through it is a site.  A copy in a local variable
 * (fp = p; if (fp) fp(x)) is not followed, as Clang cannot follow it:
 * such a function is not specialized on the probe.
 */
#include "multiverse.h"

#include <map>

/* Statements that compare name, a copy of the switch, with NULL, into
 * tests.  False if name goes anywhere else than into such a test, a copy
 * or the called address of a call: a call through it that the sites
 * pass could not see would be left without its test. */
static bool null_tests(tree name, std::vector<gimple *> &tests, int depth)
{
	imm_use_iterator it;
	gimple *use;
	bool ok = true;

	/* the front ends make a test of one or two conversions at most */
	if (TREE_CODE(name) != SSA_NAME || depth > 4)
		return false;
	/* a copy in a user's variable: unoptimized, it lives in its stack
	 * slot, which the call is made through, and Clang sees it so at
	 * every level; neither makes such a call a site */
	tree var = SSA_NAME_VAR(name);
	if (var && VAR_P(var) && !DECL_ARTIFICIAL(var))
		return false;
	FOR_EACH_IMM_USE_STMT(use, it, name) {
		enum tree_code code;
		tree lhs, rhs;

		if (is_gimple_debug(use))
			continue;
		if (gcall *call = dyn_cast<gcall *>(use)) {
			ok &= gimple_call_fn(call) == name;
			for (unsigned i = 0; i < gimple_call_num_args(call); i++)
				ok &= gimple_call_arg(call, i) != name;
			continue;
		}
		if (gcond *cond = dyn_cast<gcond *>(use)) {
			code = gimple_cond_code(cond);
			lhs = gimple_cond_lhs(cond), rhs = gimple_cond_rhs(cond);
		} else if (is_gimple_assign(use)) {
			code = gimple_assign_rhs_code(use);
			tree to = gimple_assign_lhs(use);
			/* a copy, or a conversion that keeps every bit:
			 * (uintptr_t)p != 0 tests p too */
			if (code == SSA_NAME || (CONVERT_EXPR_CODE_P(code) &&
			    (POINTER_TYPE_P(TREE_TYPE(to)) || INTEGRAL_TYPE_P(TREE_TYPE(to))) &&
			    TYPE_PRECISION(TREE_TYPE(to)) == TYPE_PRECISION(TREE_TYPE(name)))) {
				ok &= null_tests(to, tests, depth + 1);
				continue;
			}
			lhs = gimple_assign_rhs1(use), rhs = gimple_assign_rhs2(use);
		} else {
			ok = false;
			continue;
		}
		if ((code == EQ_EXPR || code == NE_EXPR) && rhs &&
		    ((lhs == name && integer_zerop(rhs)) || (rhs == name && integer_zerop(lhs))))
			tests.push_back(use);
		else
			ok = false;
	}
	return ok;
}

/* The NULL tests of the switch sw in fn, and whether every load of it
 * goes only into those and into calls. */
static std::vector<gimple *> probe_tests(tree sw, function *fn, bool *traced)
{
	std::vector<gimple *> out;
	basic_block bb;

	*traced = true;
	FOR_EACH_BB_FN(bb, fn)
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
		     gsi_next(&gsi)) {
			gimple *s = gsi_stmt(gsi);
			if (mv_switch_loaded(s) != sw)
				continue;
			if (!is_gimple_assign(s) || !null_tests(gimple_assign_lhs(s), out, 0))
				*traced = false;
		}
	return out;
}

enum mv_probe_use mv_probe_use(tree sw, function *fn)
{
	bool traced;

	if (!mv_is_fnptr_switch(sw) || probe_tests(sw, fn, &traced).empty())
		return MV_PROBE_NONE;
	return traced ? MV_PROBE_TESTED : MV_PROBE_UNTRACED;
}

void mv_probe_fold(tree decl, tree sw, bool set)
{
	function *fn = DECL_STRUCT_FUNCTION(decl);
	bool traced;

	push_cfun(fn);
	for (gimple *s : probe_tests(sw, fn, &traced)) {
		bool ne;
		if (gcond *cond = dyn_cast<gcond *>(s)) {
			ne = gimple_cond_code(cond) == NE_EXPR;
			if (ne == set)
				gimple_cond_make_true(cond);
			else
				gimple_cond_make_false(cond);
			update_stmt(s);
			continue;
		}
		ne = gimple_assign_rhs_code(s) == NE_EXPR;
		gimple_stmt_iterator gsi = gsi_for_stmt(s);
		gimple_assign_set_rhs_from_tree(&gsi, constant_boolean_node(
			ne == set, TREE_TYPE(gimple_assign_lhs(s))));
		update_stmt(gsi_stmt(gsi));
	}
	pop_cfun();
	if (set)
		mv_probe_set_in[decl].push_back(sw);
}

std::map<tree, std::vector<tree>> mv_probe_set_in;
