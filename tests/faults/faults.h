/* SPDX-License-Identifier: MIT */
/*
 * What the fault-injection tests share: the runtime's fault switch, the
 * configurations the workload is committed to, and the check that what
 * the runtime reports is what runs.
 */
#ifndef FAULTS_H
#define FAULTS_H

#include "workload.h"

void __multiverse_fault(int kind, long n, int keep_failing);
long __multiverse_fault_calls(int kind);
void __multiverse_fault_no_inline(int on);

enum { F_WRITE, F_SYNC, F_OPEN, F_ALLOC, F_STOP, F_PLACE, F_KINDS };
static const char *const kind_name[] = { "write", "sync", "open", "alloc", "stop", "place" };

struct config {
	int sel, kmode, hook;
	int (*op)(int);
};

static const struct config cfgs[] = {
	{ 1, 1, 0, op_add }, { 0, 0, 1, op_xor }, { 1, 0, 1, calc }, { 0, 1, 0, op_add },
};

static void set(const struct config *c)
{
	__atomic_store_n(&sel, c->sel, __ATOMIC_RELAXED);
	__atomic_store_n(&kmode, c->kmode, __ATOMIC_RELAXED);
	__atomic_store_n(&hook_on, c->hook, __ATOMIC_RELAXED);
	__atomic_store_n(&op, c->op, __ATOMIC_RELAXED);
}

/* live_guard(), and no stop timeout short of that: a thread that parks
 * late (the AArch64 guest's vCPUs share one host thread, and a busy host
 * delays it further: half a second seen) is not a fault, and would fail
 * a call with -EBUSY. */
static void faults_guard(unsigned seconds)
{
	live_guard(seconds);
	setenv("MULTIVERSE_STOP_TIMEOUT_MS", "600000", 1);
}

/* What the runtime reports agrees with what runs. */
static void check_reported(int committed, const struct config *bound,
			   const struct config *now, const char *when)
{
	void *const fns[] = { (void *)calc, (void *)konst, (void *)ksmall, (void *)hook, &op,
			      (void *)mix };
	const struct config *c = committed ? bound : now;
	long before = atomic_load(&live_failures);

	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
		LIVE_CHECK_EQ(multiverse_is_committed(fns[i]), committed);
	workload_expect(c->sel, c->kmode, c->hook, c->op);
	if (atomic_load(&live_failures) != before)
		fprintf(stderr, "  ... %s\n", when);
}

/* Once the fault is gone, a commit converges and the final revert leaves
 * everything as on disk; says after what, if not. */
static void check_converges(const char *after)
{
	long before = atomic_load(&live_failures);

	set(&cfgs[3]);
	LIVE_CHECK(multiverse_commit() >= 0);
	check_reported(1, &cfgs[3], &cfgs[3], "converging commit");
	LIVE_CHECK(multiverse_revert() >= 0);
	workload_check_pristine();
	if (atomic_load(&live_failures) != before)
		fprintf(stderr, "  ... converging after %s\n", after);
}

/* Runs trial(kind, n, keep_failing) for every N, until the sequence no
 * longer reaches N; returns how many points were tried. */
static int sweep(long (*trial)(int, long, int), int kind, int keep_failing)
{
	long n = 1;

	while (trial(kind, n, keep_failing) >= n && n < 500 && !atomic_load(&live_failures))
		n++;
	return (int)n - 1;
}

#endif
