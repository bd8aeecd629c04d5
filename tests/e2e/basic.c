/* SPDX-License-Identifier: MIT */
/* One integer switch read by one function: uncommitted behaviour, commit
 * to each value, calls through every path (direct call, tail call, pointer
 * to the generic), commit semantics (a later write has no effect until the
 * next commit), revert, and the API's return values. */
#include "check.h"

__attribute__((multiverse)) int config_smp;

static int hw_locks;

__attribute__((noinline)) void lock_hw(void) { hw_locks++; __asm__ volatile(""); }

__attribute__((multiverse)) int spin_lock(int x)
{
	if (config_smp) {
		lock_hw();
		return x + 100;
	}
	return x + 1;
}

__attribute__((noinline)) int direct(int x) { return spin_lock(x) * 2; }
__attribute__((noinline)) int tail(int x) { return spin_lock(x); }

int main(void)
{
	int (*ptr)(int) = OPAQUE(&spin_lock);

	/* Uncommitted: the generic reads the switch on every call. */
	CHECK_EQ(direct(1), 4);
	config_smp = 1;
	CHECK_EQ(direct(1), 202);
	CHECK_EQ(tail(1), 101);
	CHECK_EQ(ptr(1), 101);
	CHECK_EQ(multiverse_is_committed(spin_lock), 0);

	/* Commit to SMP. */
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_is_committed(spin_lock), 1);
	const struct mv_info_fn *fi = multiverse_info_fn(spin_lock);
	CHECK(fi != NULL);
	if (fi) {
		CHECK(fi->active != fi->generic);
		CHECK(fi->n_sites >= 2);
		CHECK_EQ(fi->n_sites_skipped, 0);
	}
	hw_locks = 0;
	CHECK_EQ(direct(1), 202);
	CHECK_EQ(tail(2), 102);
	CHECK_EQ(ptr(3), 103);
	CHECK_EQ(hw_locks, 3);

	/* Bound: writing the switch changes nothing until the next commit,
	 * on every path. */
	config_smp = 0;
	CHECK_EQ(direct(1), 202);
	CHECK_EQ(tail(1), 101);
	CHECK_EQ(ptr(1), 101);

	/* Committing again moves to the new variant; again is a no-op. */
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_commit(), 0);
	hw_locks = 0;
	CHECK_EQ(direct(1), 4);
	CHECK_EQ(tail(1), 2);
	CHECK_EQ(ptr(1), 2);
	CHECK_EQ(hw_locks, 0);
	config_smp = 1;
	CHECK_EQ(ptr(1), 2);

	/* Revert: the generic runs again and reads the switch. */
	CHECK_EQ(multiverse_revert(), 1);
	CHECK_EQ(multiverse_is_committed(spin_lock), 0);
	CHECK_EQ(direct(1), 202);
	CHECK_EQ(ptr(1), 101);
	CHECK_EQ(multiverse_revert(), 0);

	/* Per-function and per-switch commit. */
	CHECK_EQ(multiverse_commit_fn(spin_lock), 1);
	CHECK_EQ(tail(5), 105);
	CHECK_EQ(multiverse_revert_fn(spin_lock), 1);
	config_smp = 0;
	CHECK_EQ(multiverse_commit_refs(&config_smp), 1);
	config_smp = 1;
	CHECK_EQ(tail(5), 6);
	CHECK_EQ(multiverse_revert_refs(&config_smp), 1);
	CHECK_EQ(tail(5), 105);
	CHECK_DONE();
}
