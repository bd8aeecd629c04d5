/* SPDX-License-Identifier: MIT */
/*
 * Commit and revert while other threads run the code being patched.
 *
 * Worker threads call every kind of patched site in a tight loop (see
 * workload.h) and check each result against what either configuration
 * gives.  Meanwhile this thread flips the switches and commits and reverts
 * (globally, per switch, per function) thousands of times.  A wrong value,
 * a crash, a hang or an API error fails the test.  At the end, a revert
 * done while the workers still run must leave the text as on disk.
 *
 * A runtime that writes sites without synchronizing with the threads
 * executing them fails this now and then: a worker fetches half an old and
 * half a new instruction (a mov with a wrong constant, a call to a wild
 * address).
 *
 * Built with -DSOAK (make soak) it runs longer with more workers.
 * MV_STRESS_WORKERS, MV_STRESS_SECONDS and MV_STRESS_OPS (maximum API
 * calls) override the defaults either way.
 */
#include "workload.h"

#ifdef SOAK
#define WORKERS 8
#define SECONDS 300.0
#define MAX_OPS 1e12
#else
#define WORKERS 3
#define SECONDS 1.5
#define MAX_OPS 100000
#endif
#define MAX_WORKERS 64
/* Too little patching proves nothing: the least a run must do, taking
 * up to 20 s more than asked where the machine is slow (emulated). */
#define MIN_OPS 500
#define MIN_CHANGES 200

int main(void)
{
	int n_workers = live_env("MV_STRESS_WORKERS", WORKERS);
	double seconds = live_env("MV_STRESS_SECONDS", SECONDS);
	double max_ops = live_env("MV_STRESS_OPS", MAX_OPS);
	static struct worker w[MAX_WORKERS];
	unsigned long ops = 0, changes = 0, commits = 0, rounds = 0;
	unsigned s = 12345;
	double t0, t = 0;

	if (n_workers > MAX_WORKERS)
		n_workers = MAX_WORKERS;
	live_guard((unsigned)seconds + LIVE_HANG_SECONDS);

	/* Reads the executable now, while the text is still pristine. */
	LIVE_CHECK_EQ(text_diffs(), 0);

	/* The workload really holds every kind of site: inlined NOPs and
	 * movs, branches, sites through the pointer switch, none skipped. */
	sel = 1, kmode = 1, hook_on = 0, op = op_add;
	LIVE_CHECK(multiverse_commit() >= 5);
	workload_expect(1, 1, 0, op_add);
	const struct mv_info_fn *fi;
	LIVE_CHECK((fi = multiverse_info_fn(calc)) && fi->n_sites >= 3 && !fi->n_sites_skipped);
	LIVE_CHECK((fi = multiverse_info_fn(konst)) && fi->n_sites_inlined >= 2 && !fi->n_sites_skipped);
	LIVE_CHECK((fi = multiverse_info_fn(ksmall)) && fi->n_sites_inlined >= 2 && !fi->n_sites_skipped);
	LIVE_CHECK((fi = multiverse_info_fn(hook)) && fi->n_sites_inlined >= 2 && !fi->n_sites_skipped);
	const struct mv_info_var *vi = multiverse_info_var(&op);
	LIVE_CHECK(vi && vi->n_sites >= 3);
#ifdef __x86_64__
	/* And the sites meant to cross a cache line (or a page) do. */
	LIVE_CHECK(straddles_aligned(x_call_calc, 4096, 4094));
	LIVE_CHECK(straddles(x_tail_calc, 62));
	LIVE_CHECK(straddles(x_call_op, 63));
	LIVE_CHECK(straddles_aligned(x_tail_op, 4096, 4093));
	LIVE_CHECK(straddles(x_call_konst, 62));
	LIVE_CHECK(straddles(x_call_ksmall, 61));
	LIVE_CHECK(straddles(x_call_hook, 63));
	LIVE_CHECK(straddles(x_tail_hook, 60));
#endif
	if (live_failures)
		return live_done("stress");

	workload_start(w, n_workers);
	t0 = live_now();
	do {
		const char *what;
		int r = workload_step(&s, &what);

		if (r < 0)
			break;
		ops++;
		changes += r;
		commits += strstr(what, "commit") != NULL;
		t = live_now() - t0;
	} while (ops < max_ops && !atomic_load(&workload_stop) &&
		 (t < seconds || ops < MIN_OPS || changes < MIN_CHANGES));

	/* The last revert runs under the workers too; they then keep running
	 * on the restored code for a moment. */
	LIVE_CHECK(multiverse_revert() >= 0);
	usleep(20000);
	workload_join(w, n_workers, 1000);
	for (int i = 0; i < n_workers; i++)
		rounds += w[i].rounds;
	printf("stress: %d workers, %lu loops; %lu API calls (%lu commits), "
	       "%lu changes in %.2f s\n", n_workers, rounds, ops, commits, changes, t);

	/* Too little patching proves nothing. */
	if (!live_failures) {
		LIVE_CHECK(ops >= MIN_OPS || ops >= max_ops);
		LIVE_CHECK(changes >= MIN_CHANGES || ops >= max_ops);
	}

	workload_check_pristine();
	/* Reverted: the generics read the switches again. */
	workload_expect(sel, kmode, hook_on, op);
	return live_done("stress");
}
