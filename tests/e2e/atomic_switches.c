/* SPDX-License-Identifier: MIT */
/* _Atomic switches are switches like any other, with both compilers: a
 * function reading one, by a plain read or atomic_load_explicit() with
 * any order, gets variants on its domain (the values it compares it
 * with, an enum's enumerators, 0 and 1), and commit binds it; a bound
 * switch is read once, as a constant.  Writes through atomic_store() and
 * atomic_fetch_add() change the value the next commit binds.  A member
 * of a struct may be an _Atomic switch too. */
#include <stdatomic.h>
#include "check.h"

enum mode { SLOW = 3, FAST = 8 };

__attribute__((multiverse)) _Atomic int level;
__attribute__((multiverse)) _Atomic _Bool on;
__attribute__((multiverse)) _Atomic enum mode mode;
__attribute__((multiverse)) _Atomic unsigned char small;
__attribute__((multiverse)) _Atomic short neg;        /* read as unsigned */

struct cfg {
	__attribute__((multiverse)) _Atomic int verbose;
	int other;
};
struct cfg cfg;

__attribute__((multiverse)) int by_level(int x)
{
	switch (level) {
	case 2: return x * 2;
	case 7: return x * 7;
	default: return -x;
	}
}
__attribute__((multiverse)) int by_on(int x)
{
	return atomic_load_explicit(&on, memory_order_acquire) ? x + 100 : x;
}
__attribute__((multiverse)) int by_mode(int x)
{
	return atomic_load_explicit(&mode, memory_order_relaxed) == FAST ? x << 1 : x;
}
__attribute__((multiverse)) int by_small(int x) { return small > 200 ? x : -1; }
__attribute__((multiverse)) int by_neg(int x)
{
	if (neg == -1)
		return x - 1;
	switch (neg) {
	case -5: return x * 5;
	default: return x;
	}
}
__attribute__((multiverse)) int by_verbose(int x) { return cfg.verbose ? x + 1 : x - 1; }

/* commit, then the result of fn(3) must be `want`, with fn bound iff
 * `bound`; and it stays so when the switch changes until the next commit */
#define TRY(fn, set, want, bound) do { \
	set; \
	CHECK(multiverse_commit() >= 0); \
	CHECK_EQ(multiverse_is_committed(fn), bound); \
	CHECK_EQ(OPAQUE(&fn)(3), want); \
	CHECK_EQ(fn(3), want); \
} while (0)

int main(void)
{
	/* by_level's domain: 0, 1, 2, 7 */
	TRY(by_level, atomic_store(&level, 2), 6, 1);
	TRY(by_level, atomic_fetch_add(&level, 5), 21, 1);
	TRY(by_level, level = 1, -3, 1);
	TRY(by_level, level = 5, -3, 0);                /* no variant for 5 */
	level = 7;
	CHECK_EQ(by_level(3), 21);                      /* the generic reads it */
	CHECK(multiverse_commit() >= 0);
	level = 2;
	CHECK_EQ(by_level(3), 21);                      /* bound: read once */

	TRY(by_on, on = 1, 103, 1);
	on = 0;
	CHECK_EQ(by_on(3), 103);
	TRY(by_on, on = 0, 3, 1);

	TRY(by_mode, mode = FAST, 6, 1);
	TRY(by_mode, mode = SLOW, 3, 1);

	TRY(by_small, small = 1, -1, 1);
	TRY(by_small, small = 250, 3, 0);               /* 201 is in, 250 not */
	TRY(by_small, small = 201, 3, 1);

	TRY(by_neg, neg = -1, 2, 1);
	TRY(by_neg, neg = -5, 15, 1);
	TRY(by_neg, neg = -2, 3, 0);
	TRY(by_neg, neg = 1, 3, 1);

	TRY(by_verbose, cfg.verbose = 1, 4, 1);
	cfg.verbose = 0;
	CHECK_EQ(by_verbose(3), 4);
	TRY(by_verbose, (void)0, 2, 1);

	CHECK(multiverse_revert() >= 0);
	level = 7;
	CHECK_EQ(by_level(3), 21);
	CHECK_DONE();
}
