/* SPDX-License-Identifier: MIT */
/*
 * A probe's batches failing at every point: each write, open of the
 * writer and allocation of a sequence of commits and reverts of a probe
 * set and NULL fails in turn, once or from then on.  After each call,
 * failed or not, what the runtime reports must be what runs: with NULL
 * written to the probe, a call of the function reaches the hook exactly
 * when the function is committed to its variant for "not NULL" (bound),
 * and never crashes.  Once the fault is gone, a commit converges and the
 * final revert leaves the text as on disk.
 */
#include "live.h"
#include "trials.h"


static long hits;
static void count(long x) { hits += x; }

__attribute__((multiverse)) void (*trace)(long);

__attribute__((multiverse)) long step(long x)
{
	if (trace)
		trace(1);
	return x + 1;
}

LIVE_CALLER long call_step(long x) { return step(x); }

static void *body_set, *body_null;      /* the variants, as the API shows them */

/* The reported state runs: NULL written, the function reaches the hook
 * exactly when it is committed to its variant for "not NULL". */
static void check_runs(const char *when)
{
	void (*was)(long) = trace;
	const struct mv_info_fn *f = multiverse_info_fn(step);
	long before = hits;
	int bound = f->committed && f->active == body_set;

	LIVE_CHECK(!f->committed || f->active == body_set || f->active == body_null);
	trace = NULL;
	LIVE_CHECK_EQ(call_step(1), 2);
	LIVE_CHECK_EQ(step(1), 2);
	if (hits - before != (bound ? 2 : 0))
		LIVE_FAIL("%s: %ld hook calls, %s", when, hits - before,
			  bound ? "bound to the variant for not NULL" : "not bound");
	trace = was;
}

static int step_call(int i)
{
	trace = i % 2 ? NULL : count;
	switch (i) {
	case 0: case 1: return multiverse_commit();
	case 2: return multiverse_revert();
	case 3: return multiverse_commit_refs(&trace);
	case 4: return multiverse_commit_fn(&trace);
	default: return multiverse_revert_refs(&trace);
	}
}

static long trial(int kind, long n, int keep_failing)
{
	long calls = fault_sequence(kind, n, keep_failing, 6, step_call, check_runs);

	trace = count;
	LIVE_CHECK(multiverse_commit() >= 0);
	LIVE_CHECK(multiverse_info_fn(step)->active == body_set);
	check_runs("converging commit");
	LIVE_CHECK(multiverse_revert() >= 0);
	LIVE_CHECK_EQ(text_diffs(), 0);
	return calls;
}

int main(void)
{
	int points;

	live_guard(170);
	LIVE_CHECK_EQ(text_diffs(), 0);
	trace = count;
	LIVE_CHECK(multiverse_commit() > 0);
	body_set = multiverse_info_fn(step)->active;
	trace = NULL;
	LIVE_CHECK(multiverse_commit() > 0);
	body_null = multiverse_info_fn(step)->active;
	LIVE_CHECK(body_set != body_null && body_null != multiverse_info_fn(step)->generic);
	LIVE_CHECK(multiverse_revert() > 0);

	points = run_trials(trial);
	LIVE_CHECK(points > 10);
	return live_done("probes");
}
