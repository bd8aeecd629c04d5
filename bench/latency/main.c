/* SPDX-License-Identifier: MIT */
/*
 * Start-up, commit and revert latency of a generated program
 * (gen/gen_program.py: F functions, S call sites).  Linked by
 * tools/genbuild.py.  Prints CSV rows:
 *
 *   sites,functions,op,reps,min_us,median_us
 *
 * op is one of
 *   register      the runtime's registration constructors (one per unit)
 *   init          the first multiverse_init(): reads every descriptor,
 *                 checks every site's bytes, builds the tables
 *   first-commit  the first commit: also the first write to each text page
 *   commit        commit, generic -> variant, all functions and sites
 *   revert        revert, variant -> generic
 *   commit-live   commit with a second thread present, which makes it
 *                 take the full live protocol (breakpoints, syncs)
 *   revert-live   revert, likewise
 *
 * Wall-clock time (CLOCK_MONOTONIC): patching makes system calls, so TSC
 * cycles of this process alone would miss nothing but are no better.
 *
 *   latency [REPS]      times each operation (REPS commits and reverts)
 *   latency --count     under valgrind --tool=callgrind: each operation
 *                       once, callgrind's counters zeroed before it and
 *                       dumped after it, the dump named after the op
 *                       (tools/latency_counts.py reads them)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <multiverse.h>

#include "callgrind.h"

extern const long gen_n_sites, gen_n_functions;
void gen_set_switches(int v);

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The runtime registers each unit from a constructor of priority 101;
 * these two run just before and just after all of them.  Priorities up
 * to 100 are reserved for the implementation, which is what we measure. */
#ifndef __clang__ /* Clang (the Clang build, tools/latency_counts.py) neither warns nor knows it */
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
#endif
static double t_before_ctors, t_after_ctors;
__attribute__((constructor(100))) static void before_ctors(void) { t_before_ctors = now_us(); }
__attribute__((constructor(102))) static void after_ctors(void) { t_after_ctors = now_us(); }

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void row(const char *op, double *v, int n)
{
	qsort(v, n, sizeof *v, cmp_double);
	double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	printf("%ld,%ld,%s,%d,%.3f,%.3f\n", gen_n_sites, gen_n_functions, op, n, v[0], med);
}

/* --count: callgrind counts each operation instead of the clock. */
static int counting;

/* Runs one operation and returns its wall-clock µs.  Fails loudly if it
 * did not return what it should (for commit and revert: the number of
 * functions, all of which must change): a latency of a commit that
 * patched nothing would be meaningless.  When counting, only the
 * operation runs between zeroing callgrind's counters and dumping them. */
static double timed(int (*call)(void), const char *op, int expect)
{
	double t0 = now_us();
	if (counting)
		CALLGRIND_ZERO_STATS;
	int got = call();
	if (counting)
		CALLGRIND_DUMP_STATS_AT(op);
	double t = now_us() - t0;
	if (got != expect) {
		fprintf(stderr, "%s returned %d, expected %d: %s\n", op, got, expect,
			multiverse_last_error());
		exit(1);
	}
	return t;
}

/* The second thread: present, blocked until the end. */
static int pipe_fd[2];

static void *idle(void *arg)
{
	char c;

	(void)arg;
	return read(pipe_fd[0], &c, 1) < 0 ? arg : 0;
}

int main(int argc, char **argv)
{
	counting = argc > 1 && !strcmp(argv[1], "--count");
	int reps = counting ? 1 : argc > 1 ? atoi(argv[1]) : 20;
	if (reps < 1)
		reps = 1;
#ifdef NO_CALLGRIND
	if (counting) {
		fprintf(stderr, "built without <valgrind/callgrind.h>: --count unavailable\n");
		return 2;
	}
#endif
	/* A dump thrown away: on AArch64 the first one counts about a
	 * hundred instructions of callgrind's own start-up
	 * (common/harness.c). */
	if (counting) {
		CALLGRIND_ZERO_STATS;
		CALLGRIND_DUMP_STATS_AT("warm-up");
	}
	int n = (int)gen_n_functions;
	double *commit = calloc(reps, sizeof *commit), *revert = calloc(reps, sizeof *revert);
	double *commit_live = calloc(reps, sizeof *commit), *revert_live = calloc(reps, sizeof *revert);
	pthread_t other;
	if (!commit || !revert || !commit_live || !revert_live)
		return 1;

	double reg = t_after_ctors - t_before_ctors;
	double init = timed(multiverse_init, "init", 0);

	gen_set_switches(1);
	double first = timed(multiverse_commit, "first-commit", n);
	timed(multiverse_revert, "first-revert", n);
	for (int r = 0; r < reps; r++) {
		commit[r] = timed(multiverse_commit, "commit", n);
		revert[r] = timed(multiverse_revert, "revert", n);
	}
	if (pipe(pipe_fd) || pthread_create(&other, 0, idle, 0)) {
		fprintf(stderr, "cannot start the second thread\n");
		return 1;
	}
	for (int r = 0; r < reps; r++) {
		commit_live[r] = timed(multiverse_commit, "commit-live", n);
		revert_live[r] = timed(multiverse_revert, "revert-live", n);
	}
	if (write(pipe_fd[1], "", 1) != 1 || pthread_join(other, 0))
		return 1;

	printf("sites,functions,op,reps,min_us,median_us\n");
	row("register", &reg, 1);
	row("init", &init, 1);
	row("first-commit", &first, 1);
	row("commit", commit, reps);
	row("revert", revert, reps);
	row("commit-live", commit_live, reps);
	row("revert-live", revert_live, reps);
	return 0;
}
