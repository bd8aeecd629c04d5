/* SPDX-License-Identifier: MIT */
/*
 * A batch that changes a copied body (runtime/region.c) waits for the
 * threads that may be running it, and gives up without writing anything
 * if they stay (MULTIVERSE_STOP_TIMEOUT_MS shortens the wait here):
 *   - a thread spinning inside the copy itself;
 *   - a thread inside a signal handler, which may have interrupted the
 *     copy (it did here): its interrupted context is out of sight;
 *   - a handler installed by the raw system call, which lacks the
 *     runtime's in-handler mark: the first batch refuses and marks it.
 * Each time the thread leaves, commits go through again.
 *
 * A padded site bound by a call needs no wait: with the thread in a
 * handler, revert changes the call alone, live, and the jump over the
 * padding, which the compiler put there, leads to it.
 */
#include "live.h"

__attribute__((multiverse)) int mode;
volatile int hold;              /* the copy of variant 1 spins while set */
atomic_int spun;                /* and says so */
long done1;

__attribute__((multiverse("inline", 64))) void step(void);
__attribute__((multiverse)) void step(void)
{
	if (mode == 1) {
		while (hold)
			atomic_store_explicit(&spun, 1, memory_order_relaxed);
		done1++;
	}
}

LIVE_CALLER void call_step(void) { step(); __asm__ volatile(""); }

/* called, never copied: its padding is jumped over */
__attribute__((noinline)) long far_helper(long x) { __asm__ volatile(""); return x + 5; }
__attribute__((multiverse("inline", 48))) long far(long x);
__attribute__((multiverse)) long far(long x) { return mode ? far_helper(x) * 2 : far_helper(x) - 1; }
LIVE_CALLER long call_far(long x) { return far(x) + 1; }

static int far_jumps(void)
{
	const struct mv_info_site *s = multiverse_info_site(far, 0);

	return s && text_jumps_over_padding(s->addr, s->pad);
}

static atomic_int in_handler, leave_handler, stop, started;
static pid_t worker_tid;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_store(&in_handler, 1);
	while (!atomic_load(&leave_handler))
		;
	atomic_store(&in_handler, 0);
}

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = (pid_t)syscall(SYS_gettid);
	atomic_store(&started, 1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		call_step();
		/* mostly elsewhere, so that a stop finds the worker outside
		 * the copy within a few tries even in a slow emulated guest */
		for (volatile int i = 0; i < 1000; i++)
			;
	}
	return NULL;
}

/* Until the worker has returned from its handler: its mask no longer
 * holds the runtime's in-handler mark (signal 64).  Meanwhile commits
 * bind by calls, since a copy could not be taken out again. */
static void wait_unmarked(void)
{
	char path[64], buf[2048];
	double end = live_now() + 10;
	int marked = 1;

	snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)worker_tid);
	while (marked && live_now() < end) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
		const char *p;

		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = 0;
		p = strstr(buf, "SigBlk:");
		marked = !p || (strtoull(p + 7, NULL, 16) >> 63) & 1;
	}
	LIVE_CHECK(!marked);
}

static void wait_for(atomic_int *flag, int value)
{
	double end = live_now() + 10;

	while (atomic_load(flag) != value && live_now() < end)
		;
	LIVE_CHECK_EQ(atomic_load(flag), value);
}

/* A commit that must go through, the worker being free to leave: on a
 * machine so busy that the worker does not run for the 200 ms a commit
 * waits, it is tried again, up to 10 s.  Each try writes all or nothing. */
static int commit_when_free(void)
{
	double end = live_now() + 10;
	int r;

	while ((r = multiverse_commit()) == -EBUSY && live_now() < end)
		usleep(1000);
	return r;
}

/* A commit while the worker cannot park where it is: refused, nothing
 * written (the copy is still there), and the message says why. */
static void refused(const char *why)
{
	LIVE_CHECK_EQ(multiverse_commit(), -EBUSY);
	if (!strstr(multiverse_last_error(), why))
		LIVE_FAIL("the message says \"%s\", not \"%s\"", multiverse_last_error(), why);
	LIVE_CHECK_EQ(multiverse_info_fn(step)->n_sites_inlined, 1);
}

int main(void)
{
	struct sigaction sa;
	struct kernel_sigaction raw;
	pthread_t t;

	live_guard(30);
	setenv("MULTIVERSE_STOP_TIMEOUT_MS", "200", 1);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	LIVE_CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);

	mode = 1;
	LIVE_CHECK_EQ(multiverse_commit(), 2);         /* step and far */
	LIVE_CHECK_EQ(multiverse_info_fn(step)->n_sites_inlined, 1);
	LIVE_CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
	wait_for(&started, 1);

	/* inside the copy */
	hold = 1;
	wait_for(&spun, 1);     /* the worker is in the loop in the copy */
	mode = 0;
	refused("kept running that code");
	hold = 0;
	LIVE_CHECK(commit_when_free() >= 0);
	LIVE_CHECK_EQ(multiverse_info_fn(step)->n_sites_inlined, 1);  /* empty: a NOP */

	/* inside a handler: copy variant 1 back in first */
	mode = 1;
	LIVE_CHECK(commit_when_free() >= 0);
	LIVE_CHECK_EQ(multiverse_info_fn(step)->n_sites_inlined, 1);
	pthread_kill(t, SIGUSR1);
	wait_for(&in_handler, 1);
	mode = 0;
	refused("stayed in a signal handler");
	atomic_store(&leave_handler, 1);
	wait_for(&in_handler, 0);
	wait_unmarked();
	LIVE_CHECK(commit_when_free() >= 0);

	/* a handler behind the runtime's back: refused once, then marked */
	memset(&raw, 0, sizeof raw);
	raw.handler = on_usr1;
	raw.flags = SA_RESTORER;
	LIVE_CHECK(sigaction(SIGUSR2, NULL, NULL) == 0);
	{
		struct kernel_sigaction old;
		/* borrow the C library's restorer from an action it set */
		LIVE_CHECK(syscall(SYS_rt_sigaction, SIGUSR1, NULL, &old, 8) == 0);
		raw.restorer = old.restorer;
	}
	LIVE_CHECK(syscall(SYS_rt_sigaction, SIGUSR2, &raw, NULL, 8) == 0);
	mode = 1;
	LIVE_CHECK_EQ(multiverse_commit(), -EDEADLK);
	if (!strstr(multiverse_last_error(), "installed without going through sigaction()"))
		LIVE_FAIL("the message says \"%s\"", multiverse_last_error());
	LIVE_CHECK(commit_when_free() >= 0);
	LIVE_CHECK_EQ(multiverse_info_fn(step)->n_sites_inlined, 1);

	/* far's call, with the worker in a handler */
	LIVE_CHECK_EQ(multiverse_info_site(far, 0)->holds, MULTIVERSE_SITE_CALL);
	LIVE_CHECK(far_jumps());
	atomic_store(&leave_handler, 0);
	pthread_kill(t, SIGUSR1);
	wait_for(&in_handler, 1);
	LIVE_CHECK(multiverse_revert_fn(far) >= 0);
	LIVE_CHECK_EQ(multiverse_info_site(far, 0)->holds, MULTIVERSE_SITE_ORIGINAL);
	LIVE_CHECK(far_jumps());                /* it leads to the call */
	LIVE_CHECK_EQ(call_far(4), (4 + 5) * 2 + 1);  /* mode 1, in the generic */
	atomic_store(&leave_handler, 1);
	wait_for(&in_handler, 0);
	wait_unmarked();
	LIVE_CHECK(multiverse_commit_fn(far) >= 0);
	LIVE_CHECK_EQ(multiverse_info_site(far, 0)->holds, MULTIVERSE_SITE_CALL);
	LIVE_CHECK(far_jumps());

	atomic_store(&stop, 1);
	LIVE_CHECK(pthread_join(t, NULL) == 0);
	LIVE_CHECK(multiverse_revert() >= 0);
	LIVE_CHECK_EQ(text_diffs(), 0);
	return live_done("region_waits");
}
