/* SPDX-License-Identifier: MIT */
/* One annotated source for every compiler (include/multiverse.h): built
 * by the plain compiler it has plain variables and functions and needs no
 * runtime library; built by the wrapper it is multiversed.  Both builds
 * must compute the same results, and each API call must return what the
 * header documents for its build. */
#include "check.h"

MULTIVERSE int smp;
MULTIVERSE_VALUES(0, 1, 2) int level;
MULTIVERSE_TRACKED int tracing;

static int plain(int x) { return x + 1; }
static int twice(int x) { return x * 2; }
MULTIVERSE int (*hook)(int) = plain;

MULTIVERSE int lock_cost(int x)
{
	return (smp ? x * 10 : x) + level + (tracing ? 1000 : 0);
}

__attribute__((noinline)) int call_hook(int x) { return hook(x); }

int main(void)
{
#ifdef __MULTIVERSE__
	const int plugin = 1;
	CHECK(__MULTIVERSE__ == 1 && __MULTIVERSE_VERSION__ >= 900);
#else
	const int plugin = 0;
#endif
	CHECK_EQ(multiverse_init(), 0);
	smp = 1;
	level = 2;
	CHECK_EQ(lock_cost(3), 32);
	CHECK_EQ(multiverse_commit(), plugin ? 2 : 0);     /* lock_cost and hook */
	CHECK_EQ(multiverse_is_committed(lock_cost), plugin);
	CHECK_EQ(multiverse_bind(&tracing, -1), 0);         /* tracked: unbound */
	CHECK(plugin ? multiverse_info_fn(lock_cost) != NULL : multiverse_info_fn(lock_cost) == NULL);
	CHECK_EQ(lock_cost(3), 32);
	tracing = 1;                    /* read at run time in both builds */
	CHECK_EQ(lock_cost(3), 1032);
	smp = 0;                        /* bound only with the plugin */
	CHECK_EQ(lock_cost(3), plugin ? 1032 : 1005);
	hook = twice;                   /* the same */
	CHECK_EQ(call_hook(5), plugin ? 6 : 10);
	CHECK(multiverse_revert() >= 0);
	CHECK_EQ(lock_cost(3), 1005);
	CHECK_EQ(call_hook(5), 10);
	CHECK(multiverse_last_error() != NULL);
	if (!plugin)
		multiverse_dump_info(stdout);           /* prints nothing */
	CHECK_DONE();
}
