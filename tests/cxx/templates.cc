// SPDX-License-Identifier: MIT
// Function templates, a member template and a class template's member:
// each instance gets its own variants, and commit_fn takes one instance.
#include "check.h"

MULTIVERSE bool twice;

template <typename T> MULTIVERSE T scaled(T x) { return twice ? x * 2 : x; }

template <typename T> struct Box {
	T v;
	MULTIVERSE T get() const { return twice ? v + v : v; }
};

struct Any {
	template <typename T> MULTIVERSE static T id(T x) { return twice ? x : T(); }
};

__attribute__((noinline)) double sum(const Box<int> &b, const Box<double> &d)
{
	return scaled(3) + scaled(1.5) + scaled(7L) + b.get() + d.get() + Any::id(4);
}

int main()
{
	Box<int> b{5};
	Box<double> d{0.25};
	CHECK(sum(b, d) == 3 + 1.5 + 7 + 5 + 0.25 + 0);
	twice = true;
	CHECK_EQ(multiverse_commit_fn(scaled<int>), 1);      // one instance
	twice = false;
	CHECK(sum(b, d) == 6 + 1.5 + 7 + 5 + 0.25 + 0);
	CHECK_EQ(multiverse_is_committed(scaled<double>), 0);
	twice = true;
	CHECK_EQ(multiverse_commit(), 5);             // scaled<int> was already
	twice = false;
	CHECK(sum(b, d) == 6 + 3 + 14 + 10 + 0.5 + 4);
	CHECK_EQ(multiverse_is_committed(&Box<double>::get), 1);
	CHECK_EQ(multiverse_is_committed(Any::id<int>), 1);
	CHECK_EQ(multiverse_commit(), 6);
	CHECK(sum(b, d) == 3 + 1.5 + 7 + 5 + 0.25 + 0);
	const mv_info_fn *f = multiverse_info_fn(scaled<long>);
	CHECK(f && !strcmp(f->name, "scaled<long int>"));     // an instance: no parameters
	CHECK_DONE();
}
