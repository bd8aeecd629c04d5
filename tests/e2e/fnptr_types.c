/* SPDX-License-Identifier: MIT */
/* One function-pointer switch called through two types: the pointer
 * holds a function of the type of each call made while it does (C
 * allows that).  Each call must pass its arguments as its own type says,
 * before and after commit; Clang's stub declaration has one type only
 * (clang/fnptr.cpp), which the optimizer must not impose on the others. */
#include "check.h"

__attribute__((multiverse)) long (*op)(long);

static long inc(long x) { return x + 1; }
static double half(double x) { return x / 2; }

__attribute__((noinline)) long call_long(long x) { return op(x) * 3; }
__attribute__((noinline)) double call_double(double x) { return ((double (*)(double))op)(x) + 0.25; }

int main(void)
{
	op = inc;
	CHECK_EQ(call_long(4), 15);
	op = (long (*)(long))half;
	CHECK(call_double(5.0) == 2.75);
	CHECK_EQ(multiverse_commit_refs(&op), 1);
	CHECK(call_double(7.0) == 3.75);
	op = inc;                             /* bound: half still runs */
	CHECK(call_double(7.0) == 3.75);
	CHECK_EQ(multiverse_commit_refs(&op), 1);
	CHECK_EQ(call_long(4), 15);
	CHECK(multiverse_revert() >= 1);
	CHECK_EQ(call_long(1), 6);
	CHECK_DONE();
}
