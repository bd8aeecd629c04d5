/* SPDX-License-Identifier: MIT */
/*
 * The runtime takes SIGTRAP for its breakpoints but must not take it from
 * the application: a trap that is not its own goes to the handler the
 * application installed, before the first commit or after it.  Here the
 * application's handlers count traps from raise() and from a breakpoint
 * instruction of its own (int3, brk), while a worker runs patched sites and the main
 * thread commits (so the runtime's handler is installed and in use).
 */
#include "live.h"

#include <setjmp.h>

__attribute__((multiverse)) int sw;
__attribute__((multiverse)) int f(int x) { return sw ? x + 1 : x + 2; }
__attribute__((noinline)) int call_f(int x) { return f(x); }

static volatile sig_atomic_t first_calls, second_calls, last_code;

/* Where a handler goes after our own breakpoint (see APP_BREAKPOINT). */
static sigjmp_buf after_breakpoint;
static volatile sig_atomic_t in_breakpoint;

static void leave_breakpoint(void)
{
	if (in_breakpoint)
		siglongjmp(after_breakpoint, 1);
}

static void breakpoint(void)
{
	if (!sigsetjmp(after_breakpoint, 1)) {
		in_breakpoint = 1;
		APP_BREAKPOINT();
	}
	in_breakpoint = 0;
}

static void first(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	first_calls++;
	last_code = si->si_code;
	leave_breakpoint();
}

static void second(int sig)
{
	(void)sig;
	second_calls++;
	leave_breakpoint();
}

static atomic_int stop;

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		int r = call_f(1);
		if (r != 2 && r != 3)
			LIVE_FAIL("call_f returned %d", r);
	}
	return NULL;
}

static void commits(int n)
{
	for (int i = 0; i < n; i++) {
		sw = i & 1;
		LIVE_CHECK(multiverse_commit() >= 0);
	}
}

int main(void)
{
	struct sigaction sa = { 0 };
	pthread_t t;

	live_guard(60);
	sa.sa_sigaction = first;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	LIVE_CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);
	pthread_create(&t, NULL, worker, NULL);

	commits(200);                   /* installs the runtime's handler */
	/* The application still sees its own action. */
	struct sigaction now;
	sigaction(SIGTRAP, NULL, &now);
	LIVE_CHECK((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == first);

	raise(SIGTRAP);
	LIVE_CHECK_EQ(first_calls, 1);
	LIVE_CHECK_EQ(last_code, SI_TKILL);
	breakpoint();                   /* a breakpoint of the application's */
	LIVE_CHECK_EQ(first_calls, 2);
	LIVE_CHECK_EQ(last_code, APP_BREAKPOINT_CODE);

	/* A handler installed later through signal(), which bypasses the
	 * interposed sigaction(), replaces the runtime's until the next
	 * commit, which chains to it. */
	signal(SIGTRAP, second);
	commits(200);
	raise(SIGTRAP);
	breakpoint();
	LIVE_CHECK_EQ(second_calls, 2);
	LIVE_CHECK_EQ(first_calls, 2);

	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	return live_done("sigtrap_chain");
}
