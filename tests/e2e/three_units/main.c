/* SPDX-License-Identifier: MIT */
/* Unit 3: calls the function of unit 2 and drives the commits. */
#include "check.h"
#include "config.h"

__attribute__((noinline)) int caller(int x) { return compute(x) + 1; }
__attribute__((noinline)) int tail_caller(int x) { return compute(x); }
__attribute__((noinline)) int hook_caller(int x) { return config_hook(x) + 1; }

static int neg(int x) { return -x; }
static int inc(int x) { return x + 1; }

int main(void)
{
	config_fast = 1;
	config_hook = neg;
	CHECK_EQ(caller(5), 11);
	CHECK(multiverse_commit() >= 2);
	CHECK_EQ(multiverse_is_committed(compute), 1);
	CHECK_EQ(multiverse_is_committed(&config_hook), 1);
	const struct mv_info_fn *fi = multiverse_info_fn(compute);
	CHECK(fi && fi->n_sites >= 2 && fi->n_sites_skipped == 0);
	config_fast = 0;
	config_hook = inc;
	CHECK_EQ(caller(5), 11);
	CHECK_EQ(tail_caller(5), 10);
	CHECK_EQ(hook_caller(5), -4);
	CHECK(multiverse_commit() >= 2);
	CHECK_EQ(caller(5), 16);
	CHECK_EQ(tail_caller(5), 15);
	CHECK_EQ(hook_caller(5), 7);
	const struct mv_info_var *vi = multiverse_info_var(&config_fast);
	CHECK(vi && vi->n_functions == 1);
	CHECK(multiverse_revert() >= 2);
	CHECK_DONE();
}
