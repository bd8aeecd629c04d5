/* SPDX-License-Identifier: MIT */
/*
 * Value domains: the values of a switch that a function gets a variant for.
 *
 *   explicit   multiverse(("values", ...)): exactly those values;
 *   enum       every enumerator;
 *   _Bool      {0, 1};
 *   integer    {0, 1} plus what the function compares the switch with:
 *              c for x == c, x != c and case c; c and the value on the
 *              other side of the boundary for x < c, x <= c, x > c, x >= c;
 *              m for a bit test (x & m), 0 being there already; for a
 *              sign test of an unsigned switch, (int)x < 0, the values
 *              either side of the sign bit.  So
 *              every outcome of each test has a representative, and
 *              variants that come out the same are merged later.
 *
 * A tested value may be a conversion of the switch ((int)x < 0 is GCC's
 * form of x > INT_MAX for an unsigned x): each constant counts as the
 * switch's value that converts to it, never as the same bits read in
 * another type.  Values are kept as mv_value_of() gives them, the one
 * form the descriptors carry.
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

mv_value mv_value_of(const widest_int &v)
{
	/* The low 64 bits of the value itself: zero-extended for a value of
	 * an unsigned type, sign-extended for a negative one. */
	return v.to_shwi();
}

/* The type conversions from the switch to the value that is tested:
 * path[0] is the switch's type, path.back() the tested value's. */
typedef std::vector<tree> mv_path;

/* What a conversion to `type` makes of v. */
static widest_int convert(const widest_int &v, const_tree type)
{
	return wi::ext(v, TYPE_PRECISION(type), TYPE_SIGN(type));
}

/* Maps c, a value of path.back()'s type, back to a value of the switch
 * whose conversions along path yield c.  False when there is none. */
static bool preimage(const mv_path &path, widest_int c, widest_int *out)
{
	if (convert(c, path.back()) != c)
		return false;   /* c + delta left the tested type */
	for (size_t j = path.size() - 1; j > 0; j--) {
		widest_int w = convert(c, path[j - 1]);
		if (convert(w, path[j]) != c)
			return false;   /* a widening conversion never yields c */
		c = w;
	}
	*out = c;
	return true;
}

/* Adds the switch's value that the tested value sees as v. */
static void add_wide(const mv_path &path, const widest_int &v, std::vector<mv_value> &out)
{
	widest_int w;
	if (preimage(path, v, &w))
		out.push_back(mv_value_of(w));
}

/* Adds the switch's value that the tested value sees as c + delta. */
static void add_value(const mv_path &path, tree c, int delta,
		      std::vector<mv_value> &out)
{
	if (TREE_CODE(c) == INTEGER_CST)
		add_wide(path, wi::to_widest(c) + delta, out);
}

/* The run low .. low + n of values of the tested type (wrapping around
 * in it): each value of a short one (case 3: case 4: case 5: is one
 * range to GCC, three cases to LLVM), the ends of a longer one
 * (case 1 ... 1000). */
#define MV_CASE_RANGE_VALUES 16
static void add_run(const mv_path &path, const widest_int &low, const widest_int &n,
		    std::vector<mv_value> &out)
{
	const_tree t = path.back();
	if (wi::gts_p(n, MV_CASE_RANGE_VALUES - 1)) {
		add_wide(path, convert(low, t), out);
		add_wide(path, convert(low + n, t), out);
		return;
	}
	for (unsigned d = 0; wi::les_p(d, n); d++)
		add_wide(path, convert(low + d, t), out);
}

static void add_range(const mv_path &path, tree low, tree high,
		      std::vector<mv_value> &out)
{
	if (TREE_CODE(low) == INTEGER_CST && TREE_CODE(high) == INTEGER_CST)
		add_run(path, wi::to_widest(low), wi::to_widest(high) - wi::to_widest(low), out);
}

/* Whether the conversions along path keep the order of values: then a
 * relational test splits the switch's values at c alone.  A change of
 * signedness, or a narrowing, wraps the switch's range around instead. */
static bool keeps_order(const mv_path &path)
{
	for (size_t j = 1; j < path.size(); j++) {
		const_tree from = path[j - 1], to = path[j];
		if (TYPE_PRECISION(to) < TYPE_PRECISION(from))
			return false;
		if (TYPE_UNSIGNED(to) != TYPE_UNSIGNED(from) &&
		    (TYPE_PRECISION(to) == TYPE_PRECISION(from) ||
		     TYPE_UNSIGNED(to)))
			return false;
	}
	return true;
}

static void add_comparison(const mv_path &path, enum tree_code code,
			   tree lhs, tree rhs, tree seen,
			   std::vector<mv_value> &out)
{
	tree c = lhs == seen ? rhs : lhs;
	if (TREE_CODE(c) != INTEGER_CST)
		return;
	if (lhs != seen)   /* c OP x: look at it as x OP' c */
		code = swap_tree_comparison(code);
	/* A sign test of an unsigned switch: GCC's form of x > INT_MAX and
	 * of x & 0x80000000, (int)x < 0, splits the switch's values either
	 * side of the sign bit (as clang/domain.cpp has it). */
	tree t = path.back();
	if (!TYPE_UNSIGNED(t) && !keeps_order(path) &&
	    (((code == LT_EXPR || code == GE_EXPR) && integer_zerop(c)) ||
	     ((code == GT_EXPR || code == LE_EXPR) && integer_minus_onep(c)))) {
		add_value(path, TYPE_MAX_VALUE(t), 0, out);
		add_value(path, TYPE_MIN_VALUE(t), 0, out);
		return;
	}
	add_value(path, c, 0, out);
	switch (code) {
	case LT_EXPR: case GE_EXPR: add_value(path, c, -1, out); break;
	case GT_EXPR: case LE_EXPR: add_value(path, c, +1, out); break;
	default: return;
	}
	/* GCC folds x > INT_MAX, for an unsigned x, into (int)x < 0: the
	 * switch's values then also split where the tested type wraps. */
	if (!keeps_order(path)) {
		add_value(path, TYPE_MIN_VALUE(t), 0, out);
		add_value(path, TYPE_MAX_VALUE(t), 0, out);
	}
}

static void collect_through_local(mv_path &path, tree local, std::vector<mv_value> &out);

/* A run of values as one unsigned test, x + k <= n (GCC's form of a
 * switch with one case range, case -10 ... 10): the run -k .. -k + n,
 * counted as a case range is. */
static void add_offset_range(mv_path &path, tree sum, const widest_int &k,
			     std::vector<mv_value> &out)
{
	imm_use_iterator it;
	gimple *use;

	path.push_back(TREE_TYPE(sum));
	FOR_EACH_IMM_USE_STMT(use, it, sum) {
		enum tree_code code;
		tree lhs, rhs;
		if (gcond *cond = dyn_cast<gcond *>(use)) {
			code = gimple_cond_code(cond);
			lhs = gimple_cond_lhs(cond), rhs = gimple_cond_rhs(cond);
		} else if (is_gimple_assign(use) &&
			   TREE_CODE_CLASS(gimple_assign_rhs_code(use)) == tcc_comparison) {
			code = gimple_assign_rhs_code(use);
			lhs = gimple_assign_rhs1(use), rhs = gimple_assign_rhs2(use);
		} else {
			continue;
		}
		if (lhs != sum || TREE_CODE(rhs) != INTEGER_CST)
			continue;
		widest_int n = wi::to_widest(rhs);
		if (code == LT_EXPR || code == GE_EXPR)
			n -= 1;
		else if (code != LE_EXPR && code != GT_EXPR)
			continue;
		if (!wi::neg_p(n))
			add_run(path, -k, n, out);
	}
	path.pop_back();
}

/* Collects the constants the value `seen` (a copy of the switch, converted
 * along path) is tested against, following conversions. */
static void collect_tests(mv_path &path, tree seen, std::vector<mv_value> &out)
{
	if (TREE_CODE(seen) != SSA_NAME || path.size() > 5 ||
	    !INTEGRAL_TYPE_P(TREE_TYPE(seen)))
		return;
	path.push_back(TREE_TYPE(seen));
	imm_use_iterator it;
	gimple *use;
	FOR_EACH_IMM_USE_STMT(use, it, seen) {
		if (gcond *cond = dyn_cast<gcond *>(use)) {
			add_comparison(path, gimple_cond_code(cond),
				       gimple_cond_lhs(cond),
				       gimple_cond_rhs(cond), seen, out);
		} else if (gswitch *sw = dyn_cast<gswitch *>(use)) {
			for (unsigned i = 1; i < gimple_switch_num_labels(sw); i++) {
				tree label = gimple_switch_label(sw, i);
				add_value(path, CASE_LOW(label), 0, out);
				if (CASE_HIGH(label))
					add_range(path, CASE_LOW(label), CASE_HIGH(label), out);
			}
		} else if (is_gimple_assign(use)) {
			enum tree_code code = gimple_assign_rhs_code(use);
			tree lhs = gimple_assign_lhs(use);
			if (TREE_CODE_CLASS(code) == tcc_comparison)
				add_comparison(path, code, gimple_assign_rhs1(use),
					       gimple_assign_rhs2(use), seen, out);
			else if (code == BIT_AND_EXPR)
				add_value(path, gimple_assign_rhs2(use), 0, out);
			else if ((code == PLUS_EXPR || code == MINUS_EXPR) &&
				 TYPE_UNSIGNED(TREE_TYPE(lhs)) &&
				 gimple_assign_rhs1(use) == seen &&
				 TREE_CODE(gimple_assign_rhs2(use)) == INTEGER_CST) {
				widest_int k = wi::to_widest(gimple_assign_rhs2(use));
				add_offset_range(path, lhs, code == PLUS_EXPR ? k : -k, out);
			}
			else if (VAR_P(lhs) && code == SSA_NAME)
				collect_through_local(path, lhs, out);
			else if (CONVERT_EXPR_CODE_P(code) || code == SSA_NAME)
				collect_tests(path, lhs, out);
		}
	}
	path.pop_back();
}

/* At -O0 a value may pass through a local variable that is not in SSA
 * form: the C front end reads an _Atomic switch into a temporary, and
 * tests the temporary (D.1 = (int) _1; _2 = D.1; switch (_2)).  The
 * tests of each load of it count (the front end marks that temporary
 * addressable; a domain is only where variants are worth having, so a
 * write through a pointer meanwhile cannot make it wrong). */
static void collect_through_local(mv_path &path, tree local, std::vector<mv_value> &out)
{
	function *fn;
	basic_block bb;

	if (!VAR_P(local) || is_global_var(local) ||
	    !DECL_CONTEXT(local) || TREE_CODE(DECL_CONTEXT(local)) != FUNCTION_DECL ||
	    !(fn = DECL_STRUCT_FUNCTION(DECL_CONTEXT(local))) || !fn->cfg)
		return;
	FOR_EACH_BB_FN(bb, fn)
		for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
		     gsi_next(&gsi)) {
			gimple *s = gsi_stmt(gsi);
			if (gimple_assign_single_p(s) && gimple_assign_rhs1(s) == local)
				collect_tests(path, gimple_assign_lhs(s), out);
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

	if (mv_explicit_values(mv_switch_decl(var), out)) {
		sort_unique(var, out);
		return out;
	}
	if (TREE_CODE(type) == ENUMERAL_TYPE) {
		for (tree e = TYPE_VALUES(type); e; e = TREE_CHAIN(e)) {
			tree v = TREE_VALUE(e);
			if (TREE_CODE(v) == CONST_DECL)
				v = DECL_INITIAL(v);
			add_value(mv_path(1, type), v, 0, out);
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
				if (mv_switch_loaded(s) == var) {
					mv_path path;
					/* __atomic_load_4 returns an unsigned int,
					 * and a sanitizer reads a _Bool as an
					 * unsigned char: from the switch's type to
					 * that first */
					if (is_gimple_call(s) ||
					    TREE_TYPE(gimple_get_lhs(s)) != type)
						path.push_back(type);
					collect_tests(path, gimple_get_lhs(s), out);
				}
			}
		}
	}
	sort_unique(var, out);
	return out;
}
