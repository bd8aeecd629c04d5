/* SPDX-License-Identifier: MIT */
/*
 * Patching after the main thread returned through pthread_exit(): the
 * main thread is then a zombie, which has no memory left, so the text
 * cannot be written through /proc/self/mem (it refers to the main
 * thread), and it never takes a signal, so on AArch64 the stop of the
 * other threads must not wait for it.  A worker runs an inlined constant
 * meanwhile and checks it; every commit must succeed and take effect.
 */
#include "live.h"

__attribute__((multiverse)) _Bool big;
#define K_SMALL 0x1234
#define K_BIG (~0x5678)
__attribute__((multiverse)) int k(void) { return big ? K_BIG : K_SMALL; }
__attribute__((noipa)) int call_k(void) { return k() + 1; }

static atomic_int stop;
static atomic_long loops;

static void *worker(void *arg)
{
	while (!atomic_load(&stop)) {
		int r = call_k() - 1;
		if (r != K_SMALL && r != K_BIG)
			LIVE_FAIL("call_k() - 1 = %#x", r);
		atomic_fetch_add(&loops, 1);
	}
	return arg;
}

static void *committer(void *arg)
{
	pthread_t w;
	char state[256] = "";
	int fd;

	/* Wait until the main thread is a zombie. */
	for (int i = 0; i < 5000 && !strstr(state, "State:\tZ"); i++) {
		usleep(1000);
		if ((fd = open("/proc/self/status", O_RDONLY)) >= 0) {
			ssize_t n = read(fd, state, sizeof state - 1);
			state[n > 0 ? n : 0] = 0;
			close(fd);
		}
	}
	LIVE_CHECK(strstr(state, "State:\tZ") != NULL);
	LIVE_CHECK(pthread_create(&w, NULL, worker, NULL) == 0);
	for (int round = 0; round < 20; round++) {
		long before = atomic_load(&loops);

		big = round & 1;
		if (multiverse_commit() <= 0)
			LIVE_FAIL("commit in round %d: %s", round, multiverse_last_error());
		LIVE_CHECK_EQ(call_k() - 1, big ? K_BIG : K_SMALL);
		while (atomic_load(&loops) < before + 10)
			sched_yield();
	}
	const struct mv_info_fn *fi = multiverse_info_fn(k);
	LIVE_CHECK(fi && fi->n_sites_inlined >= 1);
	LIVE_CHECK(multiverse_revert() > 0);
	atomic_store(&stop, 1);
	LIVE_CHECK(pthread_join(w, NULL) == 0);
	exit(live_done("main_exited"));
	return arg;
}

int main(void)
{
	pthread_t t;

	live_guard(60);
	if (pthread_create(&t, NULL, committer, NULL))
		return 1;
	pthread_exit(NULL);
}
