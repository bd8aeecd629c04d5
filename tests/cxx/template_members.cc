// SPDX-License-Identifier: MIT
// Member switches of class templates' objects: each object of an
// instance has them, as in C.  Clang's plugin sees the attribute on the
// template's member and must find it from each instance's.
#include "check.h"

template <typename T> struct Tuned {
	T scale;
	MULTIVERSE bool fast;
	struct Inner {
		MULTIVERSE int level;
	} in;
};

Tuned<int> ti{3, false, {0}};
Tuned<long> tl{4, false, {0}};

MULTIVERSE int by_int(int x) { return ti.fast ? x * ti.scale : x; }
MULTIVERSE long by_long(long x) { return tl.in.level > 1 ? x * tl.scale : x; }

int main()
{
	CHECK_EQ(by_int(2) + by_long(2), 4);
	ti.fast = true;
	tl.in.level = 2;
	CHECK_EQ(multiverse_commit(), 2);
	ti.fast = false;                        // bound: no effect until the next commit
	tl.in.level = 0;
	CHECK_EQ(by_int(2) + by_long(2), 6 + 8);
	const mv_info_var *v = multiverse_info_var(&ti.fast);
	CHECK(v && !strcmp(v->name, "ti.fast") && v->is_bound);
	v = multiverse_info_var(&tl.in.level);
	CHECK(v && !strcmp(v->name, "tl.in.level"));
	CHECK_EQ(multiverse_commit(), 2);
	CHECK_EQ(by_int(2) + by_long(2), 4);
	CHECK_DONE();
}
