/* SPDX-License-Identifier: MIT */
/* Function attributes on multiversed functions and on their callers: an
 * alias of a multiversed function, a weak multiversed function, cold and
 * hot, a section of the user's, optimize and target (the variants inherit
 * the generic's options), and always_inline/flatten callers. */
#include "torture.h"

__attribute__((multiverse)) int level;

__attribute__((multiverse)) int base_fn(int x)
{
	return level ? x * 3 : x + 1;
}

/* Calls through the alias reach the generic's entry, so the committed
 * variant too. */
extern int base_alias(int x) __attribute__((alias("base_fn")));

__attribute__((multiverse, weak)) int weak_fn(int x)
{
	return level ? x - 7 : x + 7;
}

__attribute__((multiverse, cold)) int cold_fn(int x)
{
	return level ? x << 2 : x;
}

__attribute__((multiverse, hot)) int hot_fn(int x)
{
	return level ? -x : x;
}

/* The generic keeps the user's section; its variants go to .text.  A
 * tail call from the same section must stay a 5-byte jmp. */
__attribute__((multiverse, section(".text.torture_user"))) int sect_fn(int x)
{
	return level ? x * 5 : x * 6;
}

__attribute__((noinline, section(".text.torture_user"))) int sect_tail(int x)
{
	return sect_fn(x + 1);
}

__attribute__((multiverse, optimize("O0"))) int opt0_fn(int x)
{
	return level ? x + 10 : x + 20;
}

__attribute__((multiverse, optimize("O3", "unroll-loops"))) int opt3_fn(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += level ? i : 1;
	return s;
}

__attribute__((multiverse, target("popcnt"))) int target_fn(unsigned x)
{
	return level ? __builtin_popcount(x) : (int)x;
}

static inline __attribute__((always_inline)) int inl(int x)
{
	return base_fn(x) + 1;
}

__attribute__((flatten, noinline)) int flat(int x)
{
	return inl(x) + weak_fn(x);
}

static void check_all(int l, int popcnt)
{
	int (*p)(int) = OPAQUE(&base_alias);

	CHECK_EQ(base_fn(4), l ? 12 : 5);
	CHECK_EQ(base_alias(4), l ? 12 : 5);
	CHECK_EQ(p(4), l ? 12 : 5);
	CHECK_EQ(weak_fn(10), l ? 3 : 17);
	CHECK_EQ(cold_fn(3), l ? 12 : 3);
	CHECK_EQ(hot_fn(3), l ? -3 : 3);
	CHECK_EQ(sect_fn(2), l ? 10 : 12);
	CHECK_EQ(sect_tail(1), l ? 10 : 12);
	CHECK_EQ(opt0_fn(1), l ? 11 : 21);
	CHECK_EQ(opt3_fn(10), l ? 45 : 10);
	if (popcnt)
		CHECK_EQ(target_fn(0xf0f), l ? 8 : 0xf0f);
	CHECK_EQ(flat(4), (l ? 12 : 5) + 1 + (l ? -3 : 11));
}

int main(void)
{
	int l, popcnt;

	__builtin_cpu_init();
	popcnt = __builtin_cpu_supports("popcnt");
	for (l = 0; l < 2; l++) {
		level = l;
		check_all(l, popcnt);
		CHECK(multiverse_commit() >= 0);
		level = !l;
		CHECK_COMMITTED(base_fn);
		CHECK_COMMITTED(weak_fn);
		CHECK_COMMITTED(cold_fn);
		CHECK_COMMITTED(hot_fn);
		CHECK_COMMITTED(sect_fn);
		CHECK_COMMITTED(opt0_fn);
		CHECK_COMMITTED(opt3_fn);
		CHECK_COMMITTED(target_fn);
		check_all(l, popcnt);
		CHECK_EQ(multiverse_revert(), 8);
		level = l;
		check_all(l, popcnt);
	}
	CHECK_DONE();
}
