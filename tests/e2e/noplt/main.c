/* SPDX-License-Identifier: MIT */
/* Calls and tail calls compiled with -fno-plt: GCC emits them through the
 * GOT and the linker relaxes them to direct calls of the same length; the
 * runtime must patch them as sites, none skipped. */
// mvflags: -fno-plt
#include "check.h"
#include "noplt.h"

__attribute__((noinline)) int call(int x) { return scaled(x) + 1; }
__attribute__((noinline)) int tail(int x) { return scaled(x); }

int main(void)
{
	scale = 1;
	CHECK_EQ(multiverse_commit(), 1);
	const struct mv_info_fn *fi = multiverse_info_fn(scaled);
	CHECK(fi && fi->n_sites >= 2);
	CHECK(fi && fi->n_sites_skipped == 0);
	scale = 0;
	CHECK_EQ(call(2), 9);
	CHECK_EQ(tail(2), 8);
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(call(2), 3);
	CHECK_EQ(tail(2), 2);
	CHECK_EQ(multiverse_revert(), 1);
	scale = 1;
	CHECK_EQ(call(2), 9);
	CHECK_DONE();
}
