/* SPDX-License-Identifier: MIT */
/*
 * Signal handlers that run patched code while commits rewrite it: a
 * profiling timer and a pinger thread interrupt the workers at a high
 * rate, also while they are inside the runtime's own trap handler, and
 * the handlers call multiversed functions and check the results.  The
 * handlers block every signal while they run (sigfillset, as careful
 * code does) and one of them runs on an alternate signal stack.
 *
 * A handler that blocks SIGTRAP but was installed by the raw system call,
 * which nothing can intercept, must make commit refuse before it writes.
 */
#include "workload.h"

#include <sys/time.h>

static atomic_long handler_calls, handler_bad;

static void run_patched(int sig)
{
	static const int xs[] = { 3, 1000, 77 };
	int x = xs[sig % 3], r;
	unsigned long hits = 0;

	r = call_calc(x) - 1;
	if (!calc_ok(x, r))
		atomic_fetch_add(&handler_bad, 1);
	r = konst();
	if (!konst_ok(r))
		atomic_fetch_add(&handler_bad, 1);
	r = tail_op(op_arg(x));
	if (!op_ok(op_arg(x), r))
		atomic_fetch_add(&handler_bad, 1);
	call_hook(&hits);
	if (hits > 1)
		atomic_fetch_add(&handler_bad, 1);
	atomic_fetch_add(&handler_calls, 1);
}

static void on_signal(int sig)
{
	int saved = errno;

	run_patched(sig);
	errno = saved;
}

static void install(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART | flags;
	sigfillset(&sa.sa_mask);
	LIVE_CHECK(sigaction(sig, &sa, NULL) == 0);
}

static void *altstack_worker(void *arg)
{
	stack_t ss = { .ss_size = 1 << 16 };

	ss.ss_sp = malloc(ss.ss_size);
	LIVE_CHECK(sigaltstack(&ss, NULL) == 0);
	return workload_worker(arg);
}

static atomic_int stop_pinger;

static void *pinger(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(&stop_pinger)) {
		for (int i = 0; i < 3; i++)
			pthread_kill(w[i].tid, i == 2 ? SIGUSR2 : SIGUSR1);
		usleep(50);
	}
	return NULL;
}


int main(void)
{
	struct worker w[3];
	struct itimerval every = { { 0, 200 }, { 0, 200 } }, off = { 0 };
	pthread_t ping;
	unsigned s = 4242;
	unsigned long calls;

	live_guard(LIVE_HANG_SECONDS);
	LIVE_CHECK_EQ(text_diffs(), 0);
	install(SIGUSR1, 0);
	install(SIGUSR2, SA_ONSTACK);
	install(SIGPROF, 0);

	workload_start(w, 2);
	w[2].seed = 99;
	pthread_create(&w[2].tid, NULL, altstack_worker, &w[2]);
	pthread_create(&ping, NULL, pinger, w);
	setitimer(ITIMER_PROF, &every, NULL);

	/* Under emulation, with the handlers holding off the parking of
	 * threads for AArch64's inlined changes, 60 calls can take 20 s,
	 * and more on a loaded machine: it waits for them, bounded only by
	 * the hang guard. */
	calls = workload_churn_until(0.8, 60, LIVE_HANG_SECONDS / 2, &s);
	setitimer(ITIMER_PROF, &off, NULL);
	atomic_store(&stop_pinger, 1);
	pthread_join(ping, NULL);
	printf("signal_handlers: %lu API calls, %ld handler runs\n",
	       calls, atomic_load(&handler_calls));
	LIVE_CHECK_EQ(atomic_load(&handler_bad), 0);
	LIVE_CHECK(atomic_load(&handler_calls) > 100);
	LIVE_CHECK(calls > 50);

	/* A handler whose mask holds SIGTRAP, installed behind sigaction(). */
	LIVE_CHECK(multiverse_revert() >= 0);
	/* The C library's own return path, as the kernel holds it:
	 * SA_RESTORER and a restorer where the library sets them (x86-64);
	 * on AArch64 it sets neither and the kernel returns through the
	 * vDSO.  (musl's sigaction() reports the flag but not the restorer.)
	 * A SIGUSR1 still pending from the pinger may run this handler. */
	struct kernel_sigaction cur = { 0 };
	LIVE_CHECK(syscall(SYS_rt_sigaction, SIGUSR1, NULL, &cur, 8) == 0);
	struct kernel_sigaction k = { on_signal, SA_RESTART | (cur.flags & SA_RESTORER),
				      cur.restorer, ~0ul };
	LIVE_CHECK(syscall(SYS_rt_sigaction, SIGUSR1, &k, NULL, 8) == 0);
	sel = !sel;
	LIVE_CHECK_EQ(multiverse_commit(), -EDEADLK);
	LIVE_CHECK(strstr(multiverse_last_error(), "signal 10") != NULL);
	LIVE_CHECK_EQ(multiverse_is_committed(calc), 0);
	LIVE_CHECK_EQ(text_diffs(), 0);
	/* Reinstalled through sigaction(): commit works again. */
	install(SIGUSR1, 0);
	LIVE_CHECK(multiverse_commit() > 0);
	LIVE_CHECK(multiverse_revert() > 0);

	workload_join(w, 3, 100);
	workload_check_pristine();
	return live_done("signal_handlers");
}
