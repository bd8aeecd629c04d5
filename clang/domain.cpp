/* SPDX-License-Identifier: MIT */
/*
 * Value domains in Clang: the values of a switch that a function gets a
 * variant for, by the rule of the GCC front end (gcc/domain.cc), so that
 * one source gets the same variants from both plugins:
 *
 *   explicit   multiverse(("values", ...)): exactly those values;
 *   enum       every enumerator (attribute.cpp makes them explicit);
 *   _Bool      {0, 1} (likewise);
 *   integer    {0, 1} plus what the function tests the switch against:
 *              c for x == c, x != c and a case c; c and the value on the
 *              other side of the boundary for x < c, x <= c, x > c,
 *              x >= c; m for a bit test (x & m); for a run of cases to
 *              one destination (case 3 ... 5), each value, or its ends
 *              when it is longer than 16 values (also where Clang tests
 *              a long run as (x - low) <u n).
 *
 * A tested value may be a conversion of the switch: each constant counts
 * as the switch's value that converts to it, and none if there is none.
 * Where the conversions, or the signedness of the test, do not keep the
 * switch's order (a narrowing, or an unsigned value tested as signed),
 * the tested type's two ends count too, as the values where the test
 * wraps around.
 *
 * The IR is the unoptimized one (the passes run first in the pipeline),
 * but Clang's front end folds some tests otherwise than GCC's: where the
 * domains still differ, tests/report/compilers.py lists why.
 */
#include "multiverse.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

#include <algorithm>

using namespace llvm;

namespace {

/* A run of case values longer than this counts by its ends. */
const uint64_t case_run_values = 16;

struct Step {
	unsigned op;            /* Instruction::ZExt, SExt or Trunc */
	unsigned from_bits, to_bits;
};

struct Domain {
	unsigned bits;          /* the switch's */
	bool is_signed;
	std::set<int64_t> values;
	std::vector<Step> path;
	std::set<const Value *> locals;         /* followed already */

	/* Whether the value a truncation makes is extended as signed next
	 * (C's type of it), or, tested as it is, as the test's signedness
	 * says (-1: an equality, which does not tell: the switch's). */
	bool narrow_signed(size_t j, int test_signed) const
	{
		if (j + 1 < path.size() && path[j + 1].op != Instruction::Trunc)
			return path[j + 1].op == Instruction::SExt;
		return test_signed < 0 ? is_signed : test_signed;
	}

	/* The switch's value whose conversions along path give c: through
	 * a truncation, the value that keeps c's value in the narrow type. */
	bool preimage(APInt c, APInt &out, int test_signed = -1) const
	{
		for (size_t j = path.size(); j-- > 0;) {
			const Step &s = path[j];
			if (s.op == Instruction::Trunc) {
				c = narrow_signed(j, test_signed) ? c.sext(s.from_bits) :
								    c.zext(s.from_bits);
				continue;
			}
			APInt narrow = c.trunc(s.from_bits);
			if ((s.op == Instruction::SExt ? narrow.sext(s.to_bits) :
			     narrow.zext(s.to_bits)) != c)
				return false;
			c = narrow;
		}
		if (c.getBitWidth() != bits)
			return false;
		out = c;
		return true;
	}

	void keep(const APInt &v)
	{
		values.insert(is_signed ? v.getSExtValue() : (int64_t)v.getZExtValue());
	}

	void add(const APInt &c, int test_signed = -1)
	{
		APInt v;
		if (bits <= 64 && preimage(c, v, test_signed))
			keep(v);
	}

	/* Whether the tested value, compared with the given signedness,
	 * orders the switch's values as the switch does. */
	bool keeps_order(bool signed_test) const
	{
		enum { SIGNED, UNSIGNED, NONNEGATIVE } seen = is_signed ? SIGNED : UNSIGNED;
		for (const Step &s : path) {
			if (s.op == Instruction::Trunc)
				return false;
			if (s.op == Instruction::ZExt) {
				if (seen == SIGNED)
					return false;
				seen = NONNEGATIVE;
			} else if (seen == UNSIGNED) {
				return false;
			}
		}
		return seen == NONNEGATIVE || (seen == SIGNED) == signed_test;
	}

	/* The start of the extensions that end the path. */
	size_t promotions() const
	{
		size_t j = path.size();
		while (j > 0 && path[j - 1].op != Instruction::Trunc)
			j--;
		return j;
	}

	/* The tested type as C has it: after a narrowing, the narrow type
	 * that is then promoted (signed if sign-extended); the switch's own
	 * width read with the other signedness ((signed char)uc); else not
	 * known (-1), the tested width, whose test says the signedness. */
	unsigned c_width(int *c_signed) const
	{
		size_t j = promotions();
		if (j < path.size() &&
		    (j > 0 || (path[j].op == Instruction::SExt) != is_signed)) {
			*c_signed = path[j].op == Instruction::SExt;
			return path[j].from_bits;
		}
		*c_signed = -1;
		return path.empty() ? bits : path.back().to_bits;
	}

	/* A value of the C type, as the test sees it (extended). */
	APInt as_tested(const APInt &v, unsigned tested_bits, bool c_signed) const
	{
		return c_signed ? v.sext(tested_bits) : v.zext(tested_bits);
	}

	/* The values either side of the sign bit of the C type (width w,
	 * extended as c_signed to the tested width): -1 and 0 for a signed
	 * switch, the largest and smallest signed value for an unsigned one,
	 * as GCC has it (it folds x > INT_MAX and x & 0x80000000 into a
	 * sign test, (int)x < 0). */
	void sign_split(unsigned w, bool c_signed, unsigned tested_bits)
	{
		if (is_signed && bits == w) {
			add(as_tested(APInt::getAllOnes(w), tested_bits, c_signed));
			add(as_tested(APInt::getZero(w), tested_bits, c_signed));
			return;
		}
		add(as_tested(APInt::getSignedMaxValue(w), tested_bits, c_signed));
		add(as_tested(APInt::getSignedMinValue(w), tested_bits, c_signed));
	}

	void compare(CmpInst::Predicate p, const APInt &c)
	{
		if (!ICmpInst::isRelational(p))
			return add(c);
		unsigned w = c.getBitWidth();
		bool is_signed_test = ICmpInst::isSigned(p);
		bool less = p == ICmpInst::ICMP_SLT || p == ICmpInst::ICMP_ULT ||
			    p == ICmpInst::ICMP_SGE || p == ICmpInst::ICMP_UGE;
		APInt smin = APInt::getSignedMinValue(w), smax = APInt::getSignedMaxValue(w);
		/* the tested type's end on the side the neighbour would be */
		APInt end = less ? (is_signed_test ? smin : APInt::getMinValue(w)) :
				   (is_signed_test ? smax : APInt::getMaxValue(w));
		if (!keeps_order(is_signed_test)) {
			int c_signed;
			unsigned cw = c_width(&c_signed);
			if (c_signed < 0)
				c_signed = is_signed_test;
			APInt cv = c.trunc(cw);
			bool sign_test = c_signed ? (less ? cv.isZero() : cv.isAllOnes()) :
					 (less ? cv.isMinSignedValue() : cv.isMaxSignedValue());
			if (sign_test && as_tested(cv, w, c_signed) == c)
				return sign_split(cw, c_signed, w);
			add(c, is_signed_test);
			if (c != end)
				add(less ? c - 1 : c + 1, is_signed_test);
			/* where the tested type wraps around */
			add(as_tested(c_signed ? APInt::getSignedMinValue(cw) : APInt::getMinValue(cw),
				      w, c_signed), is_signed_test);
			add(as_tested(c_signed ? APInt::getSignedMaxValue(cw) : APInt::getMaxValue(cw),
				      w, c_signed), is_signed_test);
			return;
		}
		/* The last value below the boundary and the first above it,
		 * if the tested type has them: x < c is x <= c - 1. */
		if (c == end)
			return;                 /* always or never true */
		APInt below = less ? c - 1 : c, above = less ? c : c + 1, lo, hi;
		bool has_lo = preimage(below, lo), has_hi = preimage(above, hi);
		if (!has_lo || !has_hi)
			return;                 /* every value on one side */
		/* One side is the switch's smallest or largest value alone: the
		 * test is x == that value (and GCC folds it so). */
		if (is_signed ? lo.isMinSignedValue() : lo.isMinValue())
			return keep(lo);
		if (is_signed ? hi.isMaxSignedValue() : hi.isMaxValue())
			return keep(hi);
		keep(lo);
		keep(hi);
	}

	/* x & m: m, 0 being there already.  The sign bit of the tested C
	 * type alone, where the result is only compared with 0, is a sign
	 * test (GCC folds the one into the other). */
	void bit_test(BinaryOperator *b, const APInt &m)
	{
		/* the sign bit of the value before its promotions */
		size_t j = promotions();
		unsigned cw = j < path.size() ? path[j].from_bits : m.getBitWidth();
		int c_signed = j < path.size() ? path[j].op == Instruction::SExt : -1;
		bool only_tested = !b->user_empty() && std::all_of(b->user_begin(), b->user_end(),
			[](const User *u) {
				const auto *cmp = dyn_cast<ICmpInst>(u);
				const auto *zero = cmp ? dyn_cast<ConstantInt>(cmp->getOperand(1)) : nullptr;
				return cmp && cmp->isEquality() && zero && zero->isZero();
			});
		if (only_tested && cw <= m.getBitWidth() &&
		    m == APInt::getSignMask(cw).zext(m.getBitWidth()))
			return sign_split(cw, c_signed < 0 ? is_signed : c_signed, m.getBitWidth());
		add(m);
	}

	/* Values low to high, one destination: each, or the ends. */
	void run(const APInt &low, const APInt &high)
	{
		APInt n = high - low;
		if (n.uge(case_run_values)) {
			add(low);
			add(high);
			return;
		}
		for (APInt v = low;; ++v) {
			add(v);
			if (v == high)
				break;
		}
	}

	/* Runs of consecutive values in the order of the switched value's
	 * C type (signed where it was sign-extended, or is the signed
	 * switch itself). */
	void cases(SwitchInst *sw)
	{
		int c_signed;
		c_width(&c_signed);
		bool order_signed = c_signed < 0 ? is_signed : c_signed;
		std::vector<std::pair<APInt, BasicBlock *>> sorted;
		for (auto &c : sw->cases())
			sorted.push_back({ c.getCaseValue()->getValue(), c.getCaseSuccessor() });
		std::sort(sorted.begin(), sorted.end(), [order_signed](auto &a, auto &b) {
			return order_signed ? a.first.slt(b.first) : a.first.ult(b.first); });
		for (size_t i = 0; i < sorted.size();) {
			size_t last = i;
			while (last + 1 < sorted.size() && sorted[last + 1].second == sorted[i].second &&
			       sorted[last + 1].first == sorted[last].first + 1)
				last++;
			run(sorted[i].first, sorted[last].first);
			i = last + 1;
		}
	}

	/* x + k <u n (x - low <u n): the run low .. low + n - 1; the same
	 * with <=u, and the other side, >=u and >u */
	void offset_range(BinaryOperator *add, const APInt &k)
	{
		for (User *u : add->users()) {
			auto *cmp = dyn_cast<ICmpInst>(u);
			auto *n = cmp ? dyn_cast<ConstantInt>(cmp->getOperand(1)) : nullptr;
			if (!n || cmp->getOperand(0) != add || n->isZero())
				continue;
			APInt low = -k, count = n->getValue();
			CmpInst::Predicate p = cmp->getPredicate();
			if (p == ICmpInst::ICMP_ULE || p == ICmpInst::ICMP_UGT)
				count += 1;
			else if (p != ICmpInst::ICMP_ULT && p != ICmpInst::ICMP_UGE)
				continue;
			run(low, low + count - 1);
		}
	}

	/* The value stored in a local variable (the passes run before
	 * mem2reg): what each load of it is tested against counts, as in
	 * gcc/domain.cc collect_through_local. */
	void through_local(StoreInst *st)
	{
		auto *local = dyn_cast<AllocaInst>(st->getPointerOperand());
		if (!local || !locals.insert(local).second)
			return;
		for (User *u : local->users())
			if (auto *load = dyn_cast<LoadInst>(u); load && load->getType() == st->getValueOperand()->getType())
				tests(load);
	}

	void tests(Value *seen)
	{
		if (path.size() > 5)
			return;
		for (User *u : seen->users()) {
			if (auto *cast = dyn_cast<CastInst>(u)) {
				unsigned op = cast->getOpcode();
				if (op != Instruction::ZExt && op != Instruction::SExt &&
				    op != Instruction::Trunc)
					continue;
				path.push_back({ op, seen->getType()->getIntegerBitWidth(),
						 cast->getType()->getIntegerBitWidth() });
				tests(cast);
				path.pop_back();
			} else if (auto *cmp = dyn_cast<ICmpInst>(u)) {
				bool left = cmp->getOperand(0) == seen;
				auto *c = dyn_cast<ConstantInt>(cmp->getOperand(left));
				if (c)
					compare(left ? cmp->getPredicate() : cmp->getSwappedPredicate(),
						c->getValue());
			} else if (auto *sw = dyn_cast<SwitchInst>(u)) {
				if (sw->getCondition() == seen)
					cases(sw);
			} else if (auto *st = dyn_cast<StoreInst>(u)) {
				if (st->getValueOperand() == seen)
					through_local(st);
			} else if (auto *b = dyn_cast<BinaryOperator>(u)) {
				auto *c = dyn_cast<ConstantInt>(b->getOperand(b->getOperand(0) == seen));
				if (!c)
					continue;
				if (b->getOpcode() == Instruction::And)
					bit_test(b, c->getValue());
				else if (b->getOpcode() == Instruction::Add)
					offset_range(b, c->getValue());
				else if (b->getOpcode() == Instruction::Sub && b->getOperand(0) == seen)
					offset_range(b, -c->getValue());
			}
		}
	}
};

} // namespace

std::vector<int64_t> mv_domain(const std::vector<Value *> &reads, unsigned width,
			       bool is_signed)
{
	Domain d{ width * 8, is_signed, { 0, 1 }, {} };
	for (Value *r : reads)
		if (r->getType()->isIntegerTy(d.bits))
			d.tests(r);
	return { d.values.begin(), d.values.end() };
}
