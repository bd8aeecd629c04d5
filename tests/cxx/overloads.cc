// SPDX-License-Identifier: MIT
// Overloads in a namespace: each is its own multiversed function, named
// with its parameter types, and committed on its own; a lambda inside a
// multiversed function.
#include "check.h"

namespace util {
MULTIVERSE int mode;
MULTIVERSE int pick(int x) { return mode ? x + 1 : x; }
MULTIVERSE long pick(long x) { return mode ? x + 2 : x; }
MULTIVERSE int pick(const char *s) { return mode ? (int)strlen(s) : 0; }
// its return type holds its name: the runtime must still name it n(int)
MULTIVERSE int n(int x) { return mode ? x : -x; }
MULTIVERSE int with_lambda(int x)
{
	auto add = [x](int y) { return x + y; };
	return mode ? add(1) : add(2);
}
}

__attribute__((noinline)) long all(void)
{
	return util::pick(10) + util::pick(100L) + util::pick("abc") + util::with_lambda(0) * 1000;
}

int main()
{
	using namespace util;
	CHECK_EQ(all(), 2110);
	mode = 1;
	CHECK_EQ(multiverse_commit_fn(static_cast<long (*)(long)>(pick)), 1);
	mode = 0;
	CHECK_EQ(all(), 2112);
	CHECK_EQ(multiverse_is_committed(static_cast<int (*)(int)>(pick)), 0);
	mode = 1;
	CHECK_EQ(multiverse_commit(), 4);             // pick(long) was already
	mode = 0;
	CHECK_EQ(all(), 11 + 102 + 3 + 1000);
	const mv_info_fn *f = multiverse_info_fn(static_cast<int (*)(const char *)>(pick));
	CHECK(f && !strcmp(f->name, "util::pick(const char*)"));
	f = multiverse_info_fn(util::n);
	CHECK(f && !strcmp(f->name, "util::n(int)"));
	CHECK_DONE();
}
