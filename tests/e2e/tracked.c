/* SPDX-License-Identifier: MIT */
/* Tracked switches stay unbound until multiverse_bind(&var, 1); a function
 * reading a tracked and an ordinary switch then gets a partially
 * specialized variant in which only the bound switch is a constant. */
#include "check.h"

__attribute__((multiverse("tracked"))) int debug;
__attribute__((multiverse)) int fast;

__attribute__((multiverse)) int work(int x)
{
	int r = fast ? x * 2 : x + 1;
	if (debug)
		r += 1000;
	return r;
}

__attribute__((multiverse)) int only_debug(void) { return debug ? 1 : 2; }

int main(void)
{
	const struct mv_info_var *vi = multiverse_info_var(&debug);
	CHECK(vi && vi->is_tracked && !vi->is_bound);
	CHECK_EQ(multiverse_bind(&debug, -1), 0);
	CHECK_EQ(multiverse_bind(&fast, -1), 1);

	/* debug unbound: work gets the variant with fast fixed and debug read
	 * at run time; only_debug has nothing to bind and keeps its generic. */
	fast = 1;
	debug = 0;
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(work), 1);
	CHECK_EQ(multiverse_is_committed(only_debug), 0);
	CHECK_EQ(work(5), 10);
	debug = 1;                      /* still read dynamically */
	CHECK_EQ(work(5), 1010);
	CHECK_EQ(only_debug(), 1);
	fast = 0;                       /* bound: no effect until commit */
	CHECK_EQ(work(5), 1010);

	/* Bind debug: the fully specialized variant is chosen. */
	CHECK_EQ(multiverse_bind(&debug, 1), 1);
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(only_debug), 1);
	CHECK_EQ(work(5), 1006);
	debug = 0;                      /* now bound: no effect */
	CHECK_EQ(work(5), 1006);
	CHECK_EQ(only_debug(), 1);

	/* Unbind again: back to the partial variant. */
	CHECK_EQ(multiverse_bind(&debug, 0), 0);
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(work(5), 6);
	debug = 1;
	CHECK_EQ(work(5), 1006);
	CHECK_EQ(multiverse_is_committed(only_debug), 0);
	CHECK_EQ(only_debug(), 1);

	/* Unbinding an ordinary switch leaves only the generic. */
	CHECK_EQ(multiverse_bind(&fast, 0), 0);
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(work), 0);
	fast = 1;
	CHECK_EQ(work(5), 1010);
	CHECK_DONE();
}
