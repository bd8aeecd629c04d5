/* SPDX-License-Identifier: MIT */
/*
 * Worker threads that block signals, as servers do to route them to one
 * thread.  A thread that blocks SIGTRAP and meets a breakpoint is killed
 * by the kernel, so:
 *   - masks set through pthread_sigmask() and sigprocmask(), before or
 *     after the first commit, must leave SIGTRAP deliverable, and commits
 *     must run safely under those workers;
 *   - threads waiting in sigsuspend(), ppoll() (also fortified) and
 *     epoll_pwait2() (under musl, which has neither of the last two,
 *     ppoll() and epoll_pwait(); static, ppoll() only) under a mask of every
 *     signal but the one that wakes them, whose handler runs patched code,
 *     must neither be killed nor make commit refuse;
 *   - a mask set by the raw system call, which nothing can intercept,
 *     in a worker or in the thread that commits, must make commit refuse
 *     before it writes anything, and commit must work again once the
 *     mask is lifted.
 */
#include "workload.h"

#include <poll.h>
#include <sys/epoll.h>

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

/* Waiters: SIGUSR1 ends their wait, and its handler runs patched code
 * under the wait's mask. */
static atomic_int stop_waiters;
static atomic_long woken, woken_bad;

static void on_usr1(int sig)
{
	(void)sig;
	if (!calc_ok(9, call_calc(9) - 1) || !konst_ok(konst()))
		woken_bad++;
	woken++;
}

#ifdef __GLIBC__
/* What a fortified ppoll() calls when the count is not a constant. */
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		const sigset_t *set, size_t fds_len);
#else
/* musl 1.2.3 has neither: its waits under a mask are ppoll() and
 * epoll_pwait(), which the runtime interposes too.  But a static link
 * gets musl's epoll_pwait(), which comes with epoll_create1() and wins
 * over the runtime's (README, "musl"): there a wait in it makes commit
 * refuse, so the test waits in ppoll() instead. */
extern char _DYNAMIC[] __attribute__((weak));
#define __ppoll_chk(fds, n, t, set, len) ppoll(fds, n, t, set)
#define epoll_pwait2(ep, ev, n, t, set) (_DYNAMIC ? \
	epoll_pwait(ep, ev, n, (int)((t)->tv_nsec / 1000000), set) : ppoll(NULL, 0, t, set))
#endif

enum wait { SIGSUSPEND, PPOLL, PPOLL_CHK, EPOLL_PWAIT2, N_WAITS };

static void *waiter(void *arg)
{
	enum wait how = (enum wait)(uintptr_t)arg;
	struct timespec t = { 0, 5000000 };
	struct pollfd none = { .fd = -1 };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev;
	sigset_t all_but_usr1, usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	sigfillset(&all_but_usr1);
	sigdelset(&all_but_usr1, SIGUSR1);
	while (!atomic_load(&stop_waiters)) {
		switch (how) {
		case SIGSUSPEND: sigsuspend(&all_but_usr1); break;
		case PPOLL: ppoll(NULL, 0, &t, &all_but_usr1); break;
		case PPOLL_CHK: __ppoll_chk(&none, 1, &t, &all_but_usr1, sizeof none); break;
		case EPOLL_PWAIT2: epoll_pwait2(ep, &ev, 1, &t, &all_but_usr1); break;
		default: return NULL;
		}
	}
	close(ep);
	return NULL;
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
	unsigned long calls = 0;

	live_guard(LIVE_HANG_SECONDS);
	LIVE_CHECK_EQ(text_diffs(), 0);
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t waiters[N_WAITS];
	for (int i = 0; i < N_WAITS; i++)
		pthread_create(&waiters[i], NULL, waiter, (void *)(uintptr_t)i);

	/* Masks set before the first commit. */
	workload_start(plain, 1);
	start(&b[0], LIBC_PTHREAD, 11);
	start(&b[1], LIBC_PROCMASK, 22);
	for (int i = 0; i < 40; i++) {
		calls += workload_churn(0.01, &s);
		pthread_kill(waiters[i % N_WAITS], SIGUSR1);
	}
	/* And after it. */
	start(&b[2], LIBC_PTHREAD, 33);
	calls += workload_churn_until(0.4, 60, LIVE_HANG_SECONDS / 2, &s);
	atomic_store(&stop_waiters, 1);
	for (int i = 0; i < N_WAITS; i++) {
		pthread_kill(waiters[i], SIGUSR1);
		pthread_join(waiters[i], NULL);
	}
	LIVE_CHECK(woken > 20);
	LIVE_CHECK_EQ(woken_bad, 0);
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
	calls = workload_churn_until(0.3, 30, LIVE_HANG_SECONDS / 2, &s);
	LIVE_CHECK(calls > 20);

	/* The calling thread itself under a raw mask (the runtime reads its
	 * own mask, not its /proc file): refused the same way. */
	LIVE_CHECK(multiverse_revert() >= 0);
	sigset_t trap, old;
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	LIVE_CHECK(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &trap, &old, 8) == 0);
	r = multiverse_commit();
	LIVE_CHECK(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8) == 0);
	LIVE_CHECK_EQ(r, -EDEADLK);
	LIVE_CHECK(strstr(multiverse_last_error(), "blocks SIGTRAP") != NULL);
	LIVE_CHECK_EQ(multiverse_is_committed(calc), 0);
	LIVE_CHECK_EQ(text_diffs(), 0);
	LIVE_CHECK(multiverse_commit() > 0);

	LIVE_CHECK(multiverse_revert() >= 0);
	atomic_store(&workload_stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(b[i].w.tid, NULL);
	workload_join(plain, 1, 100);
	workload_check_pristine();
	return live_done("blocked_signals");
}
