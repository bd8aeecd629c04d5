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
 *
 * Wall-clock time (CLOCK_MONOTONIC): patching makes system calls, so TSC
 * cycles of this process alone would miss nothing but are no better.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <multiverse.h>

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
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
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

/* Fails loudly if a call did not change every function: a latency of
 * a commit that patched nothing would be meaningless. */
static double timed(int (*call)(void), const char *what)
{
	double t0 = now_us();
	int changed = call();
	double t = now_us() - t0;
	if (changed != gen_n_functions) {
		fprintf(stderr, "%s changed %d functions, expected %ld: %s\n", what, changed,
			gen_n_functions, multiverse_last_error());
		exit(1);
	}
	return t;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 20;
	if (reps < 1)
		reps = 1;
	double *commit = calloc(reps, sizeof *commit), *revert = calloc(reps, sizeof *revert);
	if (!commit || !revert)
		return 1;

	double reg = t_after_ctors - t_before_ctors;
	double t0 = now_us();
	if (multiverse_init() != 0) {
		fprintf(stderr, "multiverse_init: %s\n", multiverse_last_error());
		return 1;
	}
	double init = now_us() - t0;

	gen_set_switches(1);
	double first = timed(multiverse_commit, "first commit");
	timed(multiverse_revert, "first revert");
	for (int r = 0; r < reps; r++) {
		commit[r] = timed(multiverse_commit, "commit");
		revert[r] = timed(multiverse_revert, "revert");
	}

	printf("sites,functions,op,reps,min_us,median_us\n");
	row("register", &reg, 1);
	row("init", &init, 1);
	row("first-commit", &first, 1);
	row("commit", commit, reps);
	row("revert", revert, reps);
	return 0;
}
