// SPDX-License-Identifier: MIT
// Exceptions thrown in a committed variant, and through one, unwind to
// the caller's handler and run the destructors on the way: the variants'
// unwind tables must be right, at every optimization level.
#include "check.h"
#include <stdexcept>

MULTIVERSE bool strict;
static int destroyed;

struct Guard {
	~Guard() { destroyed++; }
};

__attribute__((noinline)) void fail_if(bool c)
{
	if (c)
		throw std::runtime_error("strict");
}

MULTIVERSE int check_value(int x)
{
	Guard g;
	if (strict && x < 0)
		throw std::invalid_argument("negative");
	return x;
}

MULTIVERSE int pass_through(int x)
{
	Guard g;
	fail_if(strict && x > 100);           // thrown through this variant
	return x + 1;
}

MULTIVERSE int quiet(int x) noexcept { return strict ? x : -x; }

static int caught(int (*f)(int), int x)
{
	try {
		f(x);
	} catch (const std::exception &) {
		return 1;
	}
	return 0;
}

int main()
{
	strict = true;
	CHECK_EQ(multiverse_commit(), 3);
	CHECK_EQ(multiverse_is_committed(check_value), 1);
	strict = false;                       // bound: the strict variants run
	destroyed = 0;
	CHECK_EQ(caught(check_value, -1), 1);
	CHECK_EQ(caught(pass_through, 200), 1);
	CHECK_EQ(destroyed, 2);
	CHECK_EQ(caught(pass_through, 5), 0);
	try {
		check_value(-5);                      // a direct call, patched
		CHECK(0);
	} catch (const std::invalid_argument &e) {
		CHECK(!strcmp(e.what(), "negative"));
	}
	CHECK_EQ(quiet(3), 3);
	CHECK_EQ(multiverse_commit(), 3);     // strict = false now
	CHECK_EQ(caught(check_value, -1), 0);
	CHECK_EQ(caught(pass_through, 200), 0);
	CHECK_EQ(quiet(3), -3);
	CHECK_DONE();
}
