/* SPDX-License-Identifier: MIT */
/*
 * multiverse_redirect() thousands of times while other threads call the
 * function through a site, a tail call and a pointer: from one new
 * version to another, back to the function, mixed with commits and
 * reverts.  Every call must reach one of the versions whole (its result
 * says which), and after each call returns, the main thread's own calls
 * must all reach the version it asked for.  Each version must have been
 * reached by the workers.
 */
#include "live.h"

#define WORKERS 2
#define SECONDS 0.8
#define MAX_OPS 40000

__attribute__((multiverse)) int mode = 1;

__attribute__((multiverse, noinline)) long handle(long x)
{
	return mode ? 100 + x : x;
}

__attribute__((noinline)) long handle_v2(long x) { return 1000 + x; }
__attribute__((noinline)) long handle_v3(long x) { return 3000 + x; }

LIVE_CALLER long call_handle(long x) { return handle(x) * 2; }
LIVE_CALLER long tail_handle(long x) { return handle(x); }

static atomic_int stop;
static atomic_long seen[3];             /* calls that reached each version */

/* Which version (0: handle, 1: v2, 2: v3) returned r for x, or -1. */
static int version(long r, long x)
{
	return r == 100 + x ? 0 : r == 1000 + x ? 1 : r == 3000 + x ? 2 : -1;
}

static void *worker(void *arg)
{
	long (*through)(long) = OPAQUE(&handle);
	long n[3] = { 0 };

	(void)arg;
	for (long i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		long r[3] = { call_handle(i) / 2, tail_handle(i), through(i) };

		for (int k = 0; k < 3; k++) {
			int v = version(r[k], i);
			if (v < 0)
				LIVE_FAIL("call %d with %ld returned %ld", k, i, r[k]);
			else
				n[v]++;
		}
	}
	for (int v = 0; v < 3; v++)
		atomic_fetch_add(&seen[v], n[v]);
	return NULL;
}

int main(void)
{
	static long (*const to[])(long) = { NULL, handle_v2, handle_v3 };
	long (*through)(long) = OPAQUE(&handle);
	pthread_t t[WORKERS];
	unsigned seed = 1;
	long ops = 0, redirects = 0;
	int want = 0;

	live_guard(SECONDS + LIVE_HANG_SECONDS);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	double end = live_now() + SECONDS;
	while ((live_now() < end || redirects < 2000) && ops < MAX_OPS) {
		unsigned what = live_rand(&seed) % 8;
		int r;

		if (what < 6) {
			int v = what % 3;
			r = multiverse_redirect((void *)handle, (void *)to[v]);
			want = v;
			redirects++;
		} else if (what == 6) {
			r = multiverse_commit();
		} else {
			r = multiverse_revert();
		}
		if (r < 0)
			LIVE_FAIL("op %u returned %d: %s", what, r, multiverse_last_error());
		ops++;
		for (long k = 0; k < 20; k++) {
			LIVE_CHECK_EQ(version(call_handle(k) / 2, k), want);
			LIVE_CHECK_EQ(version(tail_handle(k), k), want);
			LIVE_CHECK_EQ(version(through(k), k), want);
		}
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	if (multiverse_redirect((void *)handle, NULL) < 0 || multiverse_revert() < 0)
		LIVE_FAIL("undo: %s", multiverse_last_error());
	printf("%ld redirects in %ld calls; the workers reached handle %ld, v2 %ld, v3 %ld times\n",
	       redirects, ops, atomic_load(&seen[0]), atomic_load(&seen[1]), atomic_load(&seen[2]));
	LIVE_CHECK(atomic_load(&seen[0]) > 0 && atomic_load(&seen[1]) > 0 &&
		   atomic_load(&seen[2]) > 0);
	return atomic_load(&live_failures) ? 1 : 0;
}
