/* SPDX-License-Identifier: MIT */
/*
 * Inlined bodies changed while other threads run them.  On AArch64 the
 * architecture lets no running thread see a movz, movn or ret change, so
 * the runtime parks every other thread in a signal handler meanwhile
 * (runtime/platform/linux-user/stop.c); x86-64 uses its breakpoint protocol.
 *
 *   1. Workers call the inlined sites in a loop and check every value;
 *      meanwhile this thread commits each configuration and reverts, many
 *      times.  Every call succeeds, and each commit inlines the call sites even
 *      with threads running.
 *   2. A thread blocked in read() from a pipe all along gets its byte at
 *      the end: the stop's signal restarted the call (SA_RESTART), it did
 *      not fail with EINTR.
 *   3. A thread that cannot take a signal (in vfork() while its child
 *      sleeps: the kernel delivers it nothing) makes, on AArch64, a
 *      commit that changes an inlined instruction fail with -EBUSY, a
 *      message naming that thread, and nothing written; once the child
 *      has exited, the same commit succeeds.  On x86-64 it succeeds
 *      at once.
 */
#include "live.h"

#include <sys/wait.h>

#define WORKERS 2
#define ROUNDS 60

__attribute__((multiverse)) _Bool big;
__attribute__((multiverse)) _Bool on;

/* movz and movn on AArch64: 0x1234 and ~0x5678 fit one instruction. */
#define K_SMALL 0x1234
#define K_BIG (~0x5678)
__attribute__((multiverse)) int k(void) { return big ? K_BIG : K_SMALL; }
__attribute__((multiverse)) void e(long *hits) { if (on) ++*hits; }

__attribute__((noipa)) int call_k(void) { return k() + 1; }
__attribute__((noipa)) int tail_k(void) { return k(); }
__attribute__((noipa)) void call_e(long *h) { e(h); __asm__ volatile(""); }
__attribute__((noipa)) void tail_e(long *h) { e(h); }

static atomic_int stop;
static atomic_long calls;

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		long hits = 0;
		int r;

		r = call_k() - 1;
		if (r != K_SMALL && r != K_BIG)
			LIVE_FAIL("call_k() - 1 = %#x", r);
		r = tail_k();
		if (r != K_SMALL && r != K_BIG)
			LIVE_FAIL("tail_k() = %#x", r);
		call_e(&hits);
		tail_e(&hits);
		if (hits < 0 || hits > 2)
			LIVE_FAIL("e() counted %ld hits in 2 calls", hits);
		atomic_fetch_add(&calls, 1);
	}
	return NULL;
}

static int pipe_fd[2];
static atomic_long read_result = -2;
static atomic_int read_errno;

static void *reader(void *arg)
{
	char c;
	ssize_t n;

	(void)arg;
	n = read(pipe_fd[0], &c, 1);
	atomic_store(&read_errno, n < 0 ? errno : 0);
	atomic_store(&read_result, n == 1 ? c : n);
	return NULL;
}

static unsigned inlined(void *fn)
{
	const struct mv_info_fn *fi = multiverse_info_fn(fn);
	return fi ? fi->n_sites_inlined : 0;
}

/* Part 3: a thread in vfork() for a while. */
static atomic_int in_vfork;

static void *vforker(void *arg)
{
	pid_t child;
	int status;

	(void)arg;
	atomic_store(&in_vfork, 1);
	child = vfork();
	if (child == 0) {
		/* Only system calls in a vfork child: it runs on our stack. */
		struct timespec t = { 4, 0 };
		syscall(SYS_nanosleep, &t, NULL);
		_exit(0);
	}
	if (child > 0)
		waitpid(child, &status, 0);
	atomic_store(&in_vfork, 0);
	return NULL;
}

int main(void)
{
	pthread_t w[WORKERS], rd, vf;
	long before;

	live_guard(120);
	LIVE_CHECK(pipe(pipe_fd) == 0);
	LIVE_CHECK(pthread_create(&rd, NULL, reader, NULL) == 0);
	for (int i = 0; i < WORKERS; i++)
		LIVE_CHECK(pthread_create(&w[i], NULL, worker, NULL) == 0);

	/* 1 and 2. */
	for (int round = 0; round < ROUNDS; round++) {
		big = round & 1;
		on = (round >> 1) & 1;
		before = atomic_load(&calls);
		if (multiverse_commit() < 0)
			LIVE_FAIL("commit in round %d: %s", round, multiverse_last_error());
		if (inlined(k) < 1 || inlined(e) < 2 - on * 2)
			LIVE_FAIL("round %d: %u sites of k, %u of e inlined", round,
				  inlined(k), inlined(e));
		if (tail_k() != (big ? K_BIG : K_SMALL))
			LIVE_FAIL("round %d: tail_k() = %#x after commit", round, tail_k());
		/* Let the workers run the new code before it changes again. */
		while (atomic_load(&calls) < before + 20)
			sched_yield();
		if ((round & 3) == 3 && multiverse_revert() < 0)
			LIVE_FAIL("revert in round %d: %s", round, multiverse_last_error());
	}
	LIVE_CHECK_EQ(atomic_load(&read_result), -2);   /* still blocked */
	LIVE_CHECK(write(pipe_fd[1], "x", 1) == 1);
	LIVE_CHECK(pthread_join(rd, NULL) == 0);
	LIVE_CHECK_EQ(atomic_load(&read_result), 'x');
	LIVE_CHECK_EQ(atomic_load(&read_errno), 0);

	/* 3.  Committed with big = 0; the next commit changes the inlined
	 * constants. */
	big = 0;
	LIVE_CHECK(multiverse_commit() >= 0);
	LIVE_CHECK_EQ(tail_k(), K_SMALL);
	LIVE_CHECK(pthread_create(&vf, NULL, vforker, NULL) == 0);
	while (!atomic_load(&in_vfork))
		sched_yield();
	usleep(300000);         /* into vfork() and the child's sleep */
	big = 1;
	int r = multiverse_commit();
#if defined(__aarch64__)
	const char *m = multiverse_last_error();
	LIVE_CHECK_EQ(r, -EBUSY);
	if (!strstr(m, "did not stop within") || !strstr(m, "uninterruptible") ||
	    !strstr(m, "nothing was written"))
		LIVE_FAIL("last error: %s", m);
	LIVE_CHECK_EQ(tail_k(), K_SMALL);       /* nothing written */
	LIVE_CHECK(atomic_load(&in_vfork));     /* the test saw what it meant to */
	LIVE_CHECK(pthread_join(vf, NULL) == 0);
	r = multiverse_commit();
#endif
	LIVE_CHECK(r > 0);
	LIVE_CHECK_EQ(tail_k(), K_BIG);
	LIVE_CHECK(inlined(k) >= 1);

	atomic_store(&stop, 1);
	for (int i = 0; i < WORKERS; i++)
		LIVE_CHECK(pthread_join(w[i], NULL) == 0);
#if !defined(__aarch64__)
	LIVE_CHECK(pthread_join(vf, NULL) == 0);
#endif
	LIVE_CHECK(multiverse_revert() >= 0);
	printf("stop_world: %d rounds, %ld worker loops\n", ROUNDS, atomic_load(&calls));
	return live_done("stop_world");
}
