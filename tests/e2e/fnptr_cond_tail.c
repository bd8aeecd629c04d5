/* SPDX-License-Identifier: MIT */
/* A tail call through a function-pointer switch that the compiler makes
 * conditional (LLVM on x86-64: cmp; jge stub) is bound by commit like
 * every other call through the switch: Clang's stub is itself a site. */
#include "check.h"

static int one(int x) { return x + 1; }
static int two(int x) { return x + 2; }

__attribute__((multiverse)) int (*op)(int) = one;

__attribute__((noinline)) int maybe(int x)
{
	if (x > 5)
		return op(x);
	return 1;
}

__attribute__((noinline)) int maybe_not(int x)
{
	if (x <= 5)
		return 1;
	return op(x) + 0;
}

int main(void)
{
	CHECK_EQ(maybe(10), 11);
	CHECK_EQ(maybe(3), 1);
	CHECK_EQ(multiverse_commit(), 1);
	op = two;                       /* bound until the next commit */
	CHECK_EQ(maybe(10), 11);
	CHECK_EQ(maybe_not(10), 11);
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(maybe(10), 12);
	op = one;
	CHECK_EQ(maybe(10), 12);
	CHECK_EQ(multiverse_revert(), 1);
	CHECK_EQ(maybe(10), 11);        /* read at run time again */
	op = two;
	CHECK_EQ(maybe(10), 12);
	CHECK_DONE();
}
