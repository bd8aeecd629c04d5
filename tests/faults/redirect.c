/* SPDX-License-Identifier: MIT */
/*
 * Redirect batches failing at every point: each write, open of the
 * writer and allocation of a sequence of redirects, commits and reverts
 * fails in turn, once or from then on.  After each call, failed or not,
 * what the runtime reports must be what runs: a call through a site and
 * one through a pointer reach the function multiverse_info_fn() says
 * handle is redirected to, or else the body it says is committed.  Once
 * the fault is gone, the redirect converges, and undoing it and the
 * final revert leave the text as on disk.
 */
#include "live.h"
#include "trials.h"


__attribute__((multiverse)) int mode;

/* the variant for mode 1 returns 100 + x whatever mode holds later */
__attribute__((multiverse)) long handle(long x)
{
	return mode ? 100 + x : x;
}

__attribute__((noinline)) long handle_v2(long x) { return 1000 + x; }
__attribute__((noinline)) long handle_v3(long x) { return 3000 + x; }

LIVE_CALLER long call_handle(long x) { return handle(x); }

/* The reported state runs, checked with mode 0: the generic returns x. */
static void check_runs(const char *when)
{
	const struct mv_info_fn *f = multiverse_info_fn(handle);
	long (*through)(long) = OPAQUE(&handle);
	long want = f->redirect == (void *)handle_v2 ? 1000 :
		    f->redirect == (void *)handle_v3 ? 3000 :
		    f->committed ? 100 : 0;
	int was = mode;

	LIVE_CHECK(!f->redirect || f->redirect == (void *)handle_v2 ||
		   f->redirect == (void *)handle_v3);
	mode = 0;
	if (call_handle(1) != want + 1 || through(2) != want + 2)
		LIVE_FAIL("%s: calls return %ld and %ld, the state says %ld", when,
			  call_handle(1) - 1, through(2) - 2, want);
	mode = was;
}

static int step(int i)
{
	mode = 1;
	switch (i) {
	case 0: return multiverse_redirect((void *)handle, (void *)handle_v2);
	case 1: return multiverse_commit();
	case 2: return multiverse_redirect((void *)handle, (void *)handle_v3);
	case 3: return multiverse_redirect((void *)handle, NULL);
	case 4: return multiverse_redirect((void *)handle, (void *)handle_v2);
	case 5: return multiverse_revert();
	default: return multiverse_redirect((void *)handle, NULL);
	}
}

static long trial(int kind, long n, int keep_failing)
{
	long calls = fault_sequence(kind, n, keep_failing, 7, step, check_runs);

	LIVE_CHECK(multiverse_redirect((void *)handle, (void *)handle_v3) == 0);
	check_runs("converging redirect");
	LIVE_CHECK(multiverse_info_fn(handle)->redirect == (void *)handle_v3);
	LIVE_CHECK(multiverse_redirect((void *)handle, NULL) == 0);
	LIVE_CHECK(multiverse_revert() >= 0);
	check_runs("undone");
	LIVE_CHECK_EQ(text_diffs(), 0);
	return calls;
}

int main(void)
{
	int points;

	live_guard(170);
	LIVE_CHECK_EQ(text_diffs(), 0);
	points = run_trials(trial);
	LIVE_CHECK(points > 10);
	return live_done("redirect");
}
