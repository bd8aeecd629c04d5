/* SPDX-License-Identifier: MIT */
/*
 * A batch's queue is put in address order by each area's place among all
 * areas, not sorted (runtime/platform/linux-user/poke.c): the places are
 * counted when the first batch writes, and a site first read by a later
 * commit looks its place up.  The runtime built with fault injection
 * counts the batches placed (MV_FAULT_PLACE's calls, runtime/fault.h),
 * so every batch here must be placed, in particular those of g, whose
 * sites are first read after the count: its variants are too large for
 * a call, so nothing reads its sites when the program starts.  Each batch
 * must also take effect, and the last revert leave the text as on disk.
 */
#include "live.h"
#include "text.h"

void __multiverse_fault(int kind, long n, int keep_failing);
long __multiverse_fault_calls(int kind);
enum { F_PLACE = 5 };

__attribute__((multiverse)) int sel;
__attribute__((noipa)) int twice(int x) { return 2 * x; }
__attribute__((multiverse)) int f(int x) { return sel ? twice(x) * 3 + 7 : twice(x) ^ 0x55; }
__attribute__((multiverse)) int g(int x) { return sel ? twice(x) * 5 + 9 : twice(x) ^ 0x66; }
__attribute__((noipa)) int call_f(int x) { return f(x) + f(x + 1); }
__attribute__((noipa)) int call_g(int x) { return g(x) + g(x + 1); }

/* What f and g return for 3 and 4, sel at 1 or 0 (twice(): 6 and 8). */
#define F1 (25 + 31)
#define F0 ((6 ^ 0x55) + (8 ^ 0x55))
#define G1 (39 + 49)
#define G0 ((6 ^ 0x66) + (8 ^ 0x66))

/* With sel at 0, a committed function still runs its sel = 1 variant. */
static void expect(int f_committed, int g_committed, const char *when)
{
	sel = 0;
	if (call_f(3) != (f_committed ? F1 : F0) || call_g(3) != (g_committed ? G1 : G0))
		LIVE_FAIL("%s: call_f(3) = %d, call_g(3) = %d", when, call_f(3), call_g(3));
	sel = 1;
}

int main(void)
{
	live_guard(60);
	LIVE_CHECK_EQ(text_diffs(), 0);
	LIVE_CHECK(multiverse_init() == 0);
	__multiverse_fault(F_PLACE, 0, 0);      /* counts from here */
	sel = 1;

	LIVE_CHECK(multiverse_commit_fn(f) >= 0);
	expect(1, 0, "commit_fn(f)");
	LIVE_CHECK_EQ(__multiverse_fault_calls(F_PLACE), 1);
	LIVE_CHECK(multiverse_revert_fn(f) >= 0);
	expect(0, 0, "revert_fn(f)");
	LIVE_CHECK_EQ(__multiverse_fault_calls(F_PLACE), 2);

	/* g's sites are read now, after the count */
	LIVE_CHECK(multiverse_commit_fn(g) >= 0);
	expect(0, 1, "commit_fn(g)");
	LIVE_CHECK_EQ(__multiverse_fault_calls(F_PLACE), 3);
	LIVE_CHECK(multiverse_commit() >= 0);
	expect(1, 1, "commit()");
	LIVE_CHECK_EQ(__multiverse_fault_calls(F_PLACE), 4);
	LIVE_CHECK(multiverse_revert() >= 0);
	expect(0, 0, "revert()");
	LIVE_CHECK_EQ(__multiverse_fault_calls(F_PLACE), 5);

	/* The sort instead, from the next batch on: the same effects. */
	__multiverse_fault(F_PLACE, 1, 1);
	LIVE_CHECK(multiverse_commit() >= 0);
	expect(1, 1, "commit(), sorted");
	LIVE_CHECK(multiverse_revert() >= 0);
	expect(0, 0, "revert(), sorted");
	LIVE_CHECK_EQ(__multiverse_fault_calls(F_PLACE), 2);
	__multiverse_fault(F_PLACE, 0, 0);

	LIVE_CHECK_EQ(text_diffs(), 0);
	return live_done("faults/place");
}
