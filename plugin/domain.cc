/*
 * Value domains: the values of a switch that a function gets a variant for.
 *
 *   explicit   multiverse(("values", ...)): exactly those values;
 *   enum       every enumerator;
 *   _Bool      {0, 1};
 *   integer    {0, 1} plus what the function compares the switch with:
 *              c for x == c, x != c and case c; c and the value on the
 *              other side of the boundary for x < c, x <= c, x > c, x >= c;
 *              0 and m for a bit test (x & m).  So every outcome of each
 *              test has a representative, and variants that come out the
 *              same are merged later.
 *
 * Values outside the domain are not an error: commit then finds no variant
 * and keeps the generic, which reads the switch at run time.
 */
#include "multiverse.h"

#include <algorithm>

bool mv_value_less(const_tree var, mv_value a, mv_value b)
{
	if (TYPE_UNSIGNED(TREE_TYPE(var)))
		return (uint64_t)a < (uint64_t)b;
	return a < b;
}

/* Adds c + delta when it is a value of var's type. */
static void add_value(tree var, tree c, int delta, std::vector<mv_value> &out)
{
	if (TREE_CODE(c) != INTEGER_CST)
		return;
	widest_int v = wi::to_widest(c) + delta;
	tree type = TREE_TYPE(var);
	if (!wi::fits_to_tree_p(v, type))
		return;
	out.push_back(wi::to_wide(wide_int_to_tree(type, v)).to_shwi());
}

static void add_comparison(tree var, enum tree_code code, tree lhs, tree rhs,
			   tree seen, std::vector<mv_value> &out)
{
	tree c = lhs == seen ? rhs : lhs;
	if (TREE_CODE(c) != INTEGER_CST)
		return;
	if (lhs != seen)   /* c OP x: look at it as x OP' c */
		code = swap_tree_comparison(code);
	add_value(var, c, 0, out);
	switch (code) {
	case LT_EXPR: case GE_EXPR: add_value(var, c, -1, out); break;
	case GT_EXPR: case LE_EXPR: add_value(var, c, +1, out); break;
	default: break;
	}
}

/* Collects the constants the value `seen` (a copy of the switch) is tested
 * against, following conversions. */
static void collect_tests(tree var, tree seen, int depth,
			  std::vector<mv_value> &out)
{
	if (TREE_CODE(seen) != SSA_NAME || depth > 4)
		return;
	imm_use_iterator it;
	gimple *use;
	FOR_EACH_IMM_USE_STMT(use, it, seen) {
		if (gcond *cond = dyn_cast<gcond *>(use)) {
			add_comparison(var, gimple_cond_code(cond),
				       gimple_cond_lhs(cond),
				       gimple_cond_rhs(cond), seen, out);
		} else if (gswitch *sw = dyn_cast<gswitch *>(use)) {
			for (unsigned i = 1; i < gimple_switch_num_labels(sw); i++) {
				tree label = gimple_switch_label(sw, i);
				add_value(var, CASE_LOW(label), 0, out);
				if (CASE_HIGH(label))
					add_value(var, CASE_HIGH(label), 0, out);
			}
		} else if (is_gimple_assign(use)) {
			enum tree_code code = gimple_assign_rhs_code(use);
			tree lhs = gimple_assign_lhs(use);
			if (TREE_CODE_CLASS(code) == tcc_comparison)
				add_comparison(var, code, gimple_assign_rhs1(use),
					       gimple_assign_rhs2(use), seen, out);
			else if (code == BIT_AND_EXPR)
				add_value(var, gimple_assign_rhs2(use), 0, out);
			else if (CONVERT_EXPR_CODE_P(code) || code == SSA_NAME)
				collect_tests(var, lhs, depth + 1, out);
		}
	}
}

static void sort_unique(tree var, std::vector<mv_value> &v)
{
	std::sort(v.begin(), v.end(), [var](mv_value a, mv_value b) {
		return mv_value_less(var, a, b);
	});
	v.erase(std::unique(v.begin(), v.end()), v.end());
}

std::vector<mv_value> mv_domain(tree var, function *fn)
{
	std::vector<mv_value> out;
	tree type = TREE_TYPE(var);

	if (mv_explicit_values(var, out)) {
		sort_unique(var, out);
		return out;
	}
	if (TREE_CODE(type) == ENUMERAL_TYPE) {
		for (tree e = TYPE_VALUES(type); e; e = TREE_CHAIN(e)) {
			tree v = TREE_VALUE(e);
			if (TREE_CODE(v) == CONST_DECL)
				v = DECL_INITIAL(v);
			add_value(var, v, 0, out);
		}
		sort_unique(var, out);
		return out;
	}
	out.push_back(0);
	out.push_back(1);
	if (TREE_CODE(type) != BOOLEAN_TYPE) {
		basic_block bb;
		FOR_EACH_BB_FN(bb, fn) {
			for (gimple_stmt_iterator gsi = gsi_start_bb(bb);
			     !gsi_end_p(gsi); gsi_next(&gsi)) {
				gimple *s = gsi_stmt(gsi);
				if (gimple_assign_single_p(s) &&
				    gimple_assign_rhs1(s) == var)
					collect_tests(var, gimple_assign_lhs(s), 0, out);
			}
		}
	}
	sort_unique(var, out);
	return out;
}
