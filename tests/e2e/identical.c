/* SPDX-License-Identifier: MIT */
/* Identical code folding must not merge two generics, nor a variant of
 * one with a variant of the other: each function is committed on its
 * own, and calls through each reach its own committed body.  GCC folds
 * identical functions at -O2 and above (-fipa-icf); Clang does with
 * -fmerge-functions, which the Clang run adds. */
// mvflags-clang: -Xclang -fmerge-functions
#include "check.h"

__attribute__((multiverse)) int s;
__attribute__((multiverse)) int first(int x) { return s ? x * 7 + 1 : x - 3; }
__attribute__((multiverse)) int second(int x) { return s ? x * 7 + 1 : x - 3; }

__attribute__((noinline)) int call_first(int x) { return first(x); }
__attribute__((noinline)) int call_second(int x) { return second(x) + 0; }

int main(void)
{
	s = 1;
	CHECK_EQ(multiverse_commit(), 2);
	CHECK_EQ(multiverse_is_committed(first), 1);
	CHECK_EQ(multiverse_is_committed(second), 1);
	CHECK(OPAQUE(&first) != OPAQUE(&second));
	s = 0;                  /* bound */
	CHECK_EQ(call_first(2), 15);
	CHECK_EQ(call_second(2), 15);
	CHECK(multiverse_revert_fn(second) >= 1);
	CHECK_EQ(multiverse_is_committed(first), 1);
	CHECK_EQ(multiverse_is_committed(second), 0);
	CHECK_EQ(call_first(2), 15);
	CHECK_EQ(call_second(2), -1);
	CHECK_DONE();
}
