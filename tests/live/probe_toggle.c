/* SPDX-License-Identifier: MIT */
/*
 * A probe (a function-pointer switch compared with NULL) set, cleared
 * and committed while other threads call the function that tests it,
 * through a site, a tail call and a pointer, and while one more thread
 * switches the pointer between two hooks without committing.  A commit
 * reads the pointer once: the variant it selects must be the one for
 * what it bound the sites to, whatever the writer (which also writes
 * NULL) does meanwhile.  The generic tests the pointer and calls
 * through it as C does, reading it twice, so the other threads start
 * once the function is committed and nothing reverts it until they
 * stop: then NULL may be written at any time.  A bound "not NULL"
 * variant must still reach the hook it was committed to, also in a
 * thread inside it while a commit selects the "NULL" variant.  So no
 * call may crash or return a wrong value, and after each commit the main
 * thread's calls must all reach a hook, or none.
 */
#include "live.h"

#define WORKERS 2
#define SECONDS 0.8
#define MAX_COMMITS 20000

static _Thread_local long mine;         /* probe calls made by this thread */
static void count(long x) { mine += x; }
static void count2(long x) { mine += x; }

__attribute__((multiverse)) void (*trace)(long);

__attribute__((multiverse)) long step(long x)
{
	if (trace)
		trace(1);
	return x + 1;
}

LIVE_CALLER long call_step(long x) { return step(x) * 2; }
LIVE_CALLER long tail_step(long x) { return step(x); }

static atomic_int stop;
static atomic_long n_calls;

static void *worker(void *arg)
{
	long (*through)(long) = OPAQUE(&step);
	long i = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		LIVE_CHECK_EQ(call_step(i), 2 * (i + 1));
		LIVE_CHECK_EQ(tail_step(i), i + 1);
		LIVE_CHECK_EQ(through(i), i + 1);
		i++;
	}
	atomic_fetch_add(&n_calls, i);
	return NULL;
}

static void *writer(void *arg)
{
	unsigned seed = 7;

	(void)arg;
	static void (*const values[])(long) = { count, count2, NULL };

	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		__atomic_store_n(&trace, values[live_rand(&seed) % 3], __ATOMIC_RELAXED);
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS + 1];
	unsigned seed = 1;
	long commits = 0, bound = 0, none = 0;

	live_guard(SECONDS + LIVE_HANG_SECONDS);
	trace = count;
	if (multiverse_commit() < 0 || !multiverse_info_fn(step)->committed) {
		printf("step was not committed: %s\n", multiverse_last_error());
		return 1;
	}
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	pthread_create(&t[WORKERS], NULL, writer, NULL);
	double end = live_now() + SECONDS;
	while ((live_now() < end || commits < 200) && commits < MAX_COMMITS) {
		int r;
		switch (live_rand(&seed) % 4) {
		case 0: r = multiverse_commit(); break;
		case 1: r = multiverse_commit_refs(&trace); break;
		case 2: r = multiverse_commit_fn(&trace); break;
		default: r = multiverse_commit_fn(step); break;
		}
		if (r < 0)
			LIVE_FAIL("commit returned %d: %s", r, multiverse_last_error());
		commits++;
		const struct mv_info_fn *f = multiverse_info_fn(step);
		if (!f || !f->committed) {
			LIVE_FAIL("step is not committed after a commit");
			continue;
		}
		long before = mine;
		for (int k = 0; k < 50; k++)
			LIVE_CHECK_EQ(call_step(k), 2 * (k + 1));
		long got = mine - before;
		if (got != 0 && got != 50)
			LIVE_FAIL("a committed step reached the probe in %ld of 50 calls", got);
		bound += got == 50;
		none += got == 0;
		unsigned what = live_rand(&seed) % 4;
		if (what == 0)
			__atomic_store_n(&trace, NULL, __ATOMIC_RELAXED);
		else if (what == 1)
			__atomic_store_n(&trace, count, __ATOMIC_RELAXED);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i <= WORKERS; i++)
		pthread_join(t[i], NULL);
	if (multiverse_revert() < 0)
		LIVE_FAIL("revert: %s", multiverse_last_error());
	printf("%ld commits, committed with the probe bound %ld times, NULL %ld times; "
	       "%ld calls by the workers\n", commits, bound, none, atomic_load(&n_calls));
	/* both states were committed while the writer ran */
	LIVE_CHECK(bound > 0 && none > 0);
	return atomic_load(&live_failures) ? 1 : 0;
}
