/* SPDX-License-Identifier: MIT */
/*
 * Every step of the patching protocol fails, at every point of a sequence
 * of commits and reverts, while worker threads run the patched code: the
 * runtime built with fault injection (runtime/fault.h) fails the N-th
 * text write, sync, open of the writer, allocation or signal that stops a
 * thread, once or from then on, for N = 1, 2, ... until the sequence no longer reaches N.
 * It also makes the N-th batch that its areas' places put in address
 * order be sorted instead (the other way, runtime/platform/linux-user/
 * poke.c), which must change nothing but the cost.  After
 * each call, failed or not:
 *   - the API's answers describe the code that runs: every path gives the
 *     results of the configuration the runtime reports (the workers check
 *     every result they get meanwhile against some configuration);
 *   - a failed call says what failed and that the process is consistent;
 * and once the fault is gone, the next commit converges and the final
 * revert leaves the text exactly as on disk.
 */
#include "faults.h"

/* One trial: the sequence with the fault armed, then convergence.
 * Returns how many calls of the kind the sequence made. */
static long trial(int kind, long n, int keep_failing)
{
	static const int ops[] = { 0, 1, -1, 2, -1, 0 };   /* -1: revert */
	const struct config *bound = NULL, *now = &cfgs[3];
	char when[128];
	long calls;

	__multiverse_fault(kind, n, keep_failing);
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		int r;

		if (ops[i] >= 0)
			set(now = &cfgs[ops[i]]);
		r = ops[i] >= 0 ? multiverse_commit() : multiverse_revert();
		snprintf(when, sizeof when, "%s fault #%ld%s, step %zu (%s) returned %d",
			 kind_name[kind], n, keep_failing ? " and after" : "", i,
			 ops[i] >= 0 ? "commit" : "revert", r);
		/* A failed call either changed nothing, or, where it could
		 * not roll back what it had written, took effect whole and
		 * says so. */
		if (r >= 0 || strstr(multiverse_last_error(), "runs their new code"))
			bound = ops[i] >= 0 ? now : NULL;
		if (r < 0) {
			const char *e = multiverse_last_error();
			long before = atomic_load(&live_failures);
			LIVE_CHECK(r == -EIO || r == -EPERM || r == -EMFILE || r == -ENOMEM);
			/* What failed, and what state that left. */
			LIVE_CHECK(strstr(e, "injected") || strstr(e, "out of memory") ||
				   strstr(e, "Too many open files"));
			LIVE_CHECK(strstr(e, "nothing was written") || strstr(e, "rolled back") ||
				   strstr(e, "previous code") || strstr(e, "new code") ||
				   strstr(e, "out of memory"));
			if (atomic_load(&live_failures) != before)
				fprintf(stderr, "  ... %s: \"%s\"\n", when, e);
		}
		check_reported(bound != NULL, bound, now, when);
	}
	calls = __multiverse_fault_calls(kind);
	__multiverse_fault(kind, 0, 0);

	snprintf(when, sizeof when, "%s fault #%ld%s", kind_name[kind], n,
		 keep_failing ? " and after" : "");
	check_converges(when);
	return calls;
}

int main(void)
{
	struct worker w[2];
	int counts[F_KINDS][2] = { { 0 } };

	/* Every point of every sweep: about 60 s in the AArch64 guest
	 * (qemu, single-threaded TCG), 1 s natively; up to three minutes
	 * in the guest while the host runs another suite. */
	faults_guard(300);
	LIVE_CHECK_EQ(text_diffs(), 0);
	LIVE_CHECK(multiverse_init() == 0);

	/* Alone in the process: no syncs, and a batch within one page is
	 * one write.  Each of the sequence's six calls is a batch, and each
	 * batch opens the writer (runtime/platform/linux-user/text.c). */
	static const int kinds[] = { F_OPEN, F_WRITE, F_ALLOC };
	for (int k = 0; k < 3; k++)
		for (int keep = 0; keep < 2; keep++)
			counts[kinds[k]][keep] = sweep(trial, kinds[k], keep);
	printf("faults alone: open %d/%d, write %d/%d, alloc %d/%d points (once/for good)\n",
	       counts[F_OPEN][0], counts[F_OPEN][1], counts[F_WRITE][0],
	       counts[F_WRITE][1], counts[F_ALLOC][0], counts[F_ALLOC][1]);
	/* Batches allocate nothing: their memory is reserved when the
	 * tables grow (tests/faults/modules sweeps that). */
	LIVE_CHECK(counts[F_OPEN][0] == 6 && counts[F_WRITE][1] >= 10 &&
		   counts[F_ALLOC][0] == 0 && counts[F_ALLOC][1] == 0);

	/* With workers running the code.  Every batch of this sequence
	 * changes a body copied into a padded site (mix) and, on AArch64,
	 * an inlined movz, movn or ret, so it parks the workers instead of
	 * syncing them (runtime/platform/linux-user/stop.c), and its write
	 * failures are those of a batch written alone; the stop's signals
	 * can fail too. */
	workload_start(w, 2);
	for (int kind = 0; kind < F_KINDS; kind++)
		for (int keep = 0; keep < 2; keep++)
			counts[kind][keep] = sweep(trial, kind, keep);
	printf("faults live: open %d/%d, write %d/%d, sync %d/%d, alloc %d/%d, stop %d/%d, "
	       "place %d/%d points (once/for good)\n", counts[F_OPEN][0], counts[F_OPEN][1],
	       counts[F_WRITE][0], counts[F_WRITE][1],
	       counts[F_SYNC][0], counts[F_SYNC][1], counts[F_ALLOC][0],
	       counts[F_ALLOC][1], counts[F_STOP][0], counts[F_STOP][1],
	       counts[F_PLACE][0], counts[F_PLACE][1]);
	/* Too few points prove nothing.  Two workers: the first signal of
	 * a stop can fail before anyone parks, the second with one worker
	 * parked (a stop that meets a worker inside a copy starts over, so
	 * there may be more). */
	LIVE_CHECK(counts[F_OPEN][0] == 6 && counts[F_WRITE][1] >= 10 &&
		   counts[F_ALLOC][0] == 0 && counts[F_ALLOC][1] == 0);
	LIVE_CHECK(counts[F_SYNC][1] == 0 && counts[F_STOP][0] >= 10);
	/* Each of the six batches is placed, none sorted: their areas all
	 * have their places from the first batch on. */
	LIVE_CHECK(counts[F_PLACE][0] == 6 && counts[F_PLACE][1] == 6);

	/* Sites bound by branches only: every change is one instruction
	 * that running threads may see change (on AArch64 between b, bl and
	 * nop), so the same sequence takes the breakpoint protocol and
	 * stops no one. */
	__multiverse_fault_no_inline(1);
	for (int kind = 0; kind < F_KINDS; kind++)
		for (int keep = 0; keep < 2; keep++)
			counts[kind][keep] = sweep(trial, kind, keep);
	__multiverse_fault_no_inline(0);
	printf("faults live, not inlined: write %d/%d, sync %d/%d, alloc %d/%d, "
	       "stop %d/%d, place %d/%d points\n", counts[F_WRITE][0], counts[F_WRITE][1],
	       counts[F_SYNC][0], counts[F_SYNC][1], counts[F_ALLOC][0],
	       counts[F_ALLOC][1], counts[F_STOP][0], counts[F_STOP][1],
	       counts[F_PLACE][0], counts[F_PLACE][1]);
	LIVE_CHECK(counts[F_WRITE][1] >= 10 && counts[F_SYNC][1] >= 10 &&
		   counts[F_STOP][0] == 0 && counts[F_ALLOC][0] == 0 &&
		   counts[F_PLACE][0] == 6 && counts[F_PLACE][1] == 6);
	workload_join(w, 2, 1);
	return live_done("faults/batch");
}
