/*
 * Worker threads that block signals, as servers do to route them to one
 * thread.  A thread that blocks SIGTRAP and meets a breakpoint is killed
 * by the kernel, so:
 *   - masks set through pthread_sigmask() and sigprocmask(), before or
 *     after the first commit, must leave SIGTRAP deliverable, and commits
 *     must run safely under those workers;
 *   - a mask set by the raw system call, which nothing can intercept,
 *     must make commit refuse before it writes anything, and commit must
 *     work again once the mask is lifted.
 */
#include "workload.h"

enum how { LIBC_PTHREAD, LIBC_PROCMASK, RAW };

struct blocker {
	struct worker w;
	enum how how;
};

static atomic_int raw_lift;     /* the raw blocker unblocks SIGTRAP */
static atomic_int raw_lifted;
static atomic_int raw_blocked;  /* the raw blocker has set its mask */

static void raw_sigmask(int how, const sigset_t *set)
{
	LIVE_CHECK(syscall(SYS_rt_sigprocmask, how, set, NULL, 8) == 0);
}

static int blocks_trap(void)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, SIGTRAP);
}

static void *blocking_worker(void *arg)
{
	struct blocker *b = arg;
	sigset_t all;

	sigfillset(&all);
	switch (b->how) {
	case LIBC_PTHREAD:
		LIVE_CHECK(pthread_sigmask(SIG_BLOCK, &all, NULL) == 0);
		break;
	case LIBC_PROCMASK:
		LIVE_CHECK(sigprocmask(SIG_SETMASK, &all, NULL) == 0);
		break;
	case RAW:
		raw_sigmask(SIG_SETMASK, &all);
		break;
	}
	/* Everything else stays blocked as asked. */
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	LIVE_CHECK(sigismember(&cur, SIGUSR1) && sigismember(&cur, SIGINT));
	LIVE_CHECK_EQ(blocks_trap(), b->how == RAW);
	if (b->how == RAW) {
		atomic_store(&raw_blocked, 1);
		while (!atomic_load(&raw_lift))
			usleep(1000);
		sigset_t trap;
		sigemptyset(&trap);
		sigaddset(&trap, SIGTRAP);
		raw_sigmask(SIG_UNBLOCK, &trap);
		atomic_store(&raw_lifted, 1);
	}
	return workload_worker(&b->w);
}

static void start(struct blocker *b, enum how how, unsigned seed)
{
	b->how = how;
	b->w.seed = seed;
	if (pthread_create(&b->w.tid, NULL, blocking_worker, b)) {
		fprintf(stderr, "pthread_create failed\n");
		exit(1);
	}
}

int main(void)
{
	static struct blocker b[4];
	struct worker plain[1];
	unsigned s = 777;
	unsigned long calls;

	live_guard(30);
	LIVE_CHECK_EQ(text_diffs(), 0);

	/* Masks set before the first commit. */
	workload_start(plain, 1);
	start(&b[0], LIBC_PTHREAD, 11);
	start(&b[1], LIBC_PROCMASK, 22);
	calls = workload_churn(0.4, &s);
	/* And after it. */
	start(&b[2], LIBC_PTHREAD, 33);
	calls += workload_churn(0.4, &s);
	printf("blocked_signals: %lu API calls under workers blocking all signals\n", calls);
	LIVE_CHECK(calls > 50);

	/* A raw mask: refused, nothing written, nothing changed. */
	LIVE_CHECK(multiverse_revert() >= 0);
	start(&b[3], RAW, 44);
	while (!atomic_load(&raw_blocked))
		usleep(1000);
	sel = 1;
	int r = multiverse_commit();
	LIVE_CHECK_EQ(r, -EDEADLK);
	LIVE_CHECK(strstr(multiverse_last_error(), "blocks SIGTRAP") != NULL);
	LIVE_CHECK_EQ(multiverse_is_committed(calc), 0);
	LIVE_CHECK_EQ(text_diffs(), 0);

	/* Lifted: commit works again, under all the workers. */
	atomic_store(&raw_lift, 1);
	while (!atomic_load(&raw_lifted))
		usleep(1000);
	LIVE_CHECK(multiverse_commit() > 0);
	LIVE_CHECK_EQ(multiverse_is_committed(calc), 1);
	calls = workload_churn(0.3, &s);
	LIVE_CHECK(calls > 20);

	LIVE_CHECK(multiverse_revert() >= 0);
	atomic_store(&workload_stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(b[i].w.tid, NULL);
	workload_join(plain, 1, 100);
	workload_check_pristine();
	return live_done("blocked_signals");
}
