/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the live-patching tests: programs in which other threads run
 * the code that commit and revert rewrite.  A failure is counted (from any
 * thread), the first few are printed, and the program exits non-zero.  A
 * crash or a hang ends the program at once with a message saying where.
 */
#ifndef LIVE_H
#define LIVE_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <multiverse.h>

/* A caller the compiler keeps whole and calls: one call site each.
 * (Clang has no noipa.) */
#ifdef __clang__
#define LIVE_CALLER __attribute__((noinline))
#else
#define LIVE_CALLER __attribute__((noipa))
#endif

static atomic_long live_failures;

/* Counts a failure; only the first 20 are printed, since a broken protocol
 * fails millions of times a second. */
#define LIVE_FAIL(...) do { \
	if (atomic_fetch_add(&live_failures, 1) < 20) { \
		flockfile(stderr); \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		funlockfile(stderr); \
	} \
} while (0)

#define LIVE_CHECK(cond) do { \
	if (!(cond)) \
		LIVE_FAIL("check failed: %s", #cond); \
} while (0)

#define LIVE_CHECK_EQ(a, b) do { \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) \
		LIVE_FAIL("check failed: %s == %s (%lld != %lld)", #a, #b, a_, b_); \
} while (0)

/* A pointer the optimizer cannot see through: a call through it reaches
 * the generic's entry, not a recorded call site. */
#define OPAQUE(p) ({ __typeof__(p) p_ = (p); __asm__("" : "+r"(p_)); p_; })

static inline double live_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A positive number from the environment, else def. */
static inline double live_env(const char *name, double def)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (!s || !*s)
		return def;
	v = strtod(s, &end);
	return *end || !(v > 0) ? def : v;
}

/* xorshift: cheap per-thread randomness, no shared state. */
static inline unsigned live_rand(unsigned *s)
{
	unsigned x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* --- crashes and hangs --------------------------------------------------- */

/* Async-signal-safe output: the handlers below run in a thread that just
 * executed a torn instruction, with stdio possibly locked. */
static void live_put(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

static void live_put_hex(uintptr_t v)
{
	char buf[2 + 16 + 1], *p = buf + sizeof(buf) - 1;

	*p = 0;
	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	*--p = 'x';
	*--p = '0';
	live_put(p);
}

/* A torn or stale instruction shows up as SIGSEGV, SIGILL, SIGBUS or
 * SIGFPE (a wild jump), so any of them fails the test, reporting the
 * instruction pointer and the bytes there to help find the site. */
static void live_crash(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
#if defined(__x86_64__)
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#else
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.pc;
#endif

	live_put("\nFATAL: signal ");
	live_put(sig == SIGSEGV ? "SIGSEGV" : sig == SIGILL ? "SIGILL" :
		 sig == SIGBUS ? "SIGBUS" : "SIGFPE");
	live_put(" in thread ");
	live_put_hex((uintptr_t)syscall(SYS_gettid));
	live_put(" at pc ");
	live_put_hex(ip);
	live_put(", fault address ");
	live_put_hex((uintptr_t)si->si_addr);
	live_put("\n");
	_exit(128 + sig);
}

static void live_hang(int sig)
{
	(void)sig;
	live_put("\nFATAL: timed out (hang or deadlock)\n");
	_exit(124);
}

/* A program that has not ended after this long hangs.  Tests wait for
 * the counts they need, however slow the machine, and never require a
 * rate: only this bounds them (tests/run's timeout for them is longer). */
#define LIVE_HANG_SECONDS 240

/* Installs the crash handlers and an alarm after seconds.  SIGTRAP is
 * left alone on purpose: the runtime may own it (int3 protocol), and if
 * nobody handles a trap its default action fails the test anyway. */
static inline void live_guard(unsigned seconds)
{
	static const int sigs[] = { SIGSEGV, SIGILL, SIGBUS, SIGFPE };
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = live_crash;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGALRM, live_hang);
	alarm(seconds);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* The kernel's struct sigaction, for tests that set actions by the raw
 * system call, behind the C library's (and the runtime's) back. */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

/* A breakpoint instruction of the application's own, not the runtime's,
 * and the si_code the kernel reports for it.  An AArch64 brk traps with
 * the pc on it: a handler that returns runs it again, so handlers that
 * must survive one leave by siglongjmp (x86-64's int3 reports the next
 * instruction). */
#if defined(__x86_64__)
#define APP_BREAKPOINT() __asm__ volatile("int3")
#define APP_BREAKPOINT_CODE SI_KERNEL
#else
#define APP_BREAKPOINT() __asm__ volatile("brk #0")
#define APP_BREAKPOINT_CODE TRAP_BRKPT
#endif

/* --- pristine text: text_diffs() from the e2e tests ------------------- */

#include "text.h"

/* Ends main: exit status 0 only if nothing failed. */
static inline int live_done(const char *name)
{
	long n = atomic_load(&live_failures);

	if (n) {
		fprintf(stderr, "%s: %ld failure(s)\n", name, n);
		multiverse_dump_info(stderr);
		return 1;
	}
	return 0;
}

#endif
