/* SPDX-License-Identifier: MIT */
/*
 * The application's own SIGTRAP action, whatever it is and whenever it is
 * set, must neither break commits under running workers nor change what
 * the application's traps do: ignored, default, a plain handler reset on
 * first use, an action set by the raw system call behind the runtime's
 * back, SIG_IGN and SIG_DFL with a stale SA_SIGINFO flag, or set with
 * signal().  What the kernel would do with each trap is checked in children.
 */
#include "workload.h"

#include <sys/wait.h>

static struct worker w[2];
static unsigned seed = 31337;

/* n API calls under the workers, however long they take. */
static void churn(int n)
{
	LIVE_CHECK(workload_churn_until(0, n, LIVE_HANG_SECONDS, &seed) >= (unsigned long)n);
}

/* How a child that does what() ends: its exit status, or 128 + signal. */
static int in_child(void (*what)(void))
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		what();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static void do_raise(void) { raise(SIGTRAP); }
static void do_breakpoint(void) { APP_BREAKPOINT(); }

static volatile sig_atomic_t plain_calls;
static void plain(int sig) { (void)sig; plain_calls++; }


int main(void)
{
	struct sigaction sa, cur;

	live_guard(LIVE_HANG_SECONDS);
	LIVE_CHECK_EQ(text_diffs(), 0);

	/* Ignored before the first commit. */
	signal(SIGTRAP, SIG_IGN);
	workload_start(w, 2);
	churn(100);
	raise(SIGTRAP);                         /* ignored: we survive */
	sigaction(SIGTRAP, NULL, &cur);
	LIVE_CHECK(cur.sa_handler == SIG_IGN);
	/* The kernel never ignores a breakpoint the thread hits itself. */
	LIVE_CHECK_EQ(in_child(do_breakpoint), 128 + SIGTRAP);
	LIVE_CHECK_EQ(in_child(do_raise), 0);

	/* A plain handler, reset on first use, installed after commits. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = plain;
	sa.sa_flags = SA_RESETHAND;
	LIVE_CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);
	churn(100);
	raise(SIGTRAP);
	LIVE_CHECK_EQ(plain_calls, 1);
	sigaction(SIGTRAP, NULL, &cur);
	LIVE_CHECK(cur.sa_handler == SIG_DFL);
	LIVE_CHECK_EQ(in_child(do_raise), 128 + SIGTRAP);

	/* The default action, by the raw system call, behind sigaction(). */
	struct kernel_sigaction dfl = { SIG_DFL, 0, 0, 0 };
	LIVE_CHECK(syscall(SYS_rt_sigaction, SIGTRAP, &dfl, NULL, 8) == 0);
	churn(100);                             /* takes SIGTRAP back */
	LIVE_CHECK_EQ(in_child(do_raise), 128 + SIGTRAP);
	LIVE_CHECK_EQ(in_child(do_breakpoint), 128 + SIGTRAP);

	/* SA_SIGINFO kept from an earlier handler: the kernel ignores it
	 * for SIG_IGN and SIG_DFL, and so must the chain. */
	memset(&sa, 0, sizeof sa);
	sa.sa_flags = SA_SIGINFO;
	sa.sa_handler = SIG_IGN;
	LIVE_CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);
	churn(100);
	LIVE_CHECK_EQ(in_child(do_raise), 0);
	sa.sa_handler = SIG_DFL;
	LIVE_CHECK(sigaction(SIGTRAP, &sa, NULL) == 0);
	churn(100);
	LIVE_CHECK_EQ(in_child(do_raise), 128 + SIGTRAP);

	/* signal(), which goes to the kernel behind sigaction(), sets the
	 * application's action too: the runtime's handler stays. */
	LIVE_CHECK(signal(SIGTRAP, SIG_IGN) != SIG_ERR);
	struct kernel_sigaction k;
	LIVE_CHECK(syscall(SYS_rt_sigaction, SIGTRAP, NULL, &k, 8) == 0);
	LIVE_CHECK(k.handler != SIG_IGN && k.handler != SIG_DFL);
	churn(100);
	LIVE_CHECK_EQ(in_child(do_raise), 0);

	LIVE_CHECK(multiverse_revert() >= 0);
	workload_join(w, 2, 100);
	workload_check_pristine();
	return live_done("trap_actions");
}
