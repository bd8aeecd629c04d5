/* SPDX-License-Identifier: MIT */
/*
 * Failures that meet areas an earlier failure left stuck (docs/patching.md,
 * "When a step fails"): a batch that rolls back, or that fails in its
 * rollback, must neither report a configuration the text does not run nor
 * lose track of what a stuck area holds, nor hang on a trap handler that
 * a signal handler jumped out of.  Each scenario checks, after
 * every call, that multiverse_is_committed() agrees with what f and g
 * return, and at the end that a clean commit converges with no site
 * skipped and a revert leaves the text as on disk.
 */
#include "live.h"
#include "text.h"

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>

void __multiverse_fault(int kind, long n, int keep_failing);
enum { F_WRITE, F_SYNC, F_OPEN, F_ALLOC };

__attribute__((multiverse)) int sel;
__attribute__((multiverse)) int f(int x) { return sel ? x + 1 : x - 1; }
__attribute__((multiverse)) int g(int x) { return sel ? x * 3 : x * 5; }
__attribute__((noipa)) int call_f(int x) { return f(x) * 2; }
__attribute__((noipa)) int call_g(int x) { return g(x) * 2; }

static atomic_int stop;
static pthread_t workers[2];

static void *work(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		int a = call_f(3), b = call_g(3);
		if ((a != 8 && a != 4) || (b != 18 && b != 30))
			LIVE_FAIL("worker: call_f(3) = %d, call_g(3) = %d", a, b);
	}
	return NULL;
}

static void start(void)
{
	atomic_store(&stop, 0);
	for (int i = 0; i < 2; i++)
		pthread_create(&workers[i], NULL, work, NULL);
}

static void join(void)
{
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(workers[i], NULL);
}

static void no_faults(void)
{
	__multiverse_fault(F_WRITE, 0, 0);
	__multiverse_fault(F_SYNC, 0, 0);
}

/* With sel at 0, a committed function still runs its sel = 1 variant. */
static void check_reported(const char *when)
{
	int saved = sel;

	sel = 0;
	if (multiverse_is_committed(f) != (call_f(3) == 8) ||
	    multiverse_is_committed(g) != (call_g(3) == 18))
		LIVE_FAIL("%s: f committed %d, runs %d; g committed %d, runs %d",
			  when, multiverse_is_committed(f), call_f(3),
			  multiverse_is_committed(g), call_g(3));
	sel = saved;
}

static void check_converges(const char *scenario)
{
	sel = 1;
	LIVE_CHECK(multiverse_commit() >= 0);
	check_reported(scenario);
	LIVE_CHECK_EQ(multiverse_is_committed(f), 1);
	LIVE_CHECK_EQ(multiverse_is_committed(g), 1);
	LIVE_CHECK_EQ(multiverse_info_fn(f)->n_sites_skipped, 0);
	LIVE_CHECK_EQ(multiverse_info_fn(g)->n_sites_skipped, 0);
	LIVE_CHECK(multiverse_revert() >= 0);
	LIVE_CHECK_EQ(text_diffs(), 0);
}

/* g's areas stuck, then a batch for f that fails once and whose rollback
 * fails at its last sync: every area holds its old bytes again, so the
 * batch must not be reported as gone forward. */
static void rollback_fails_late(void)
{
	start();
	sel = 1;
	__multiverse_fault(F_WRITE, 2, 1);
	multiverse_commit_fn(g);
	no_faults();
	check_reported("commit_fn(g), stuck");
	__multiverse_fault(F_WRITE, 1, 0);
	__multiverse_fault(F_SYNC, 3, 0);
	multiverse_commit_fn(f);
	no_faults();
	check_reported("commit_fn(f), rollback's last sync failed");
	join();
	check_converges("rollback_fails_late");
}

/* Stuck areas, then a batch that rolls back cleanly: the stuck areas'
 * text is their old bytes again, and the next commit must accept it. */
static void rollback_over_stuck(int alone)
{
	const char *name = alone ? "rollback_over_stuck alone" : "rollback_over_stuck";

	start();
	sel = 1;
	__multiverse_fault(F_WRITE, 2, 1);
	multiverse_commit();
	no_faults();
	check_reported(name);
	if (alone)
		join();
	__multiverse_fault(F_WRITE, 1, 0);
	multiverse_commit();
	no_faults();
	check_reported(name);
	if (!alone)
		join();
	check_converges(name);
}

/* A signal whose handler jumps away (the usual time-out idiom) lands
 * while the worker is in the runtime's trap handler, on areas kept stuck
 * so that every call traps: the handler must not be left counted as busy,
 * or the next call that swaps a table waits for it forever. */
static sigjmp_buf worker_env;
static volatile sig_atomic_t jumps;
static atomic_int worker_ready;         /* worker_env is set */

static void jump_away(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(worker_env, 1);
}

static void *trapping_worker(void *arg)
{
	(void)arg;
	sigsetjmp(worker_env, 1);
	atomic_store(&worker_ready, 1);
	while (!atomic_load(&stop))
		call_f(3);
	return NULL;
}

static void jumps_out_of_trap(void)
{
	struct timespec pause = { 0, 20000 };
	pthread_t t;

	signal(SIGUSR1, jump_away);
	atomic_store(&stop, 0);
	pthread_create(&t, NULL, trapping_worker, NULL);
	/* no jump before there is somewhere to jump to: on a slow machine
	 * the first signal could otherwise beat sigsetjmp() */
	while (!atomic_load(&worker_ready))
		sched_yield();
	sel = 1;
	__multiverse_fault(F_WRITE, 2, 1);     /* every batch fails: stuck */
	multiverse_commit();
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 200; i++) {
			pthread_kill(t, SIGUSR1);
			nanosleep(&pause, NULL);
		}
		(round & 1) ? multiverse_revert() : multiverse_commit();
	}
	no_faults();
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	LIVE_CHECK(jumps > 0);
	check_converges("jumps_out_of_trap");
}

int main(void)
{
	live_guard(60);
	LIVE_CHECK_EQ(text_diffs(), 0);
	LIVE_CHECK(multiverse_init() == 0);
	rollback_fails_late();
	rollback_over_stuck(0);
	rollback_over_stuck(1);
	jumps_out_of_trap();
	return live_done("faults/sequences");
}
