/* SPDX-License-Identifier: MIT */
/* A unit whose multiversed function has no call site, only calls through
 * a pointer: it still links (its constructor names the bounds of an empty
 * site section) and commits. */
#include "check.h"

__attribute__((multiverse)) int level;
__attribute__((multiverse)) int scaled(int x) { return level ? x * 10 : x; }

int main(void)
{
	int (*f)(int) = OPAQUE(&scaled);

	level = 1;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_is_committed(scaled), 1);
	level = 0;
	CHECK_EQ(f(4), 40);
	CHECK(multiverse_revert() >= 1);
	CHECK_EQ(f(4), 4);
	CHECK_DONE();
}
