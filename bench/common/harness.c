/* SPDX-License-Identifier: MIT */
/*
 * Measures every candidate in one process, round-robin: sample 1 of each
 * candidate, then sample 2 of each, and so on, with the starting
 * candidate rotated every round.  Frequency changes and noise from
 * other processes on this shared machine then hit all candidates alike,
 * instead of whichever one happened to be running.
 *
 * One sample is one call of a candidate's timed loop (common/measure.h)
 * with a fixed iteration count; the result is ticks per iteration.  We
 * report the minimum (the least disturbed sample) and the median over
 * all samples, each minus the same statistic of the empty loop, which
 * runs in the same rotation.
 *
 * Output: CSV on stdout, one row per candidate and predictor state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "measure.h"

#include "callgrind.h"

uint64_t empty_warm_loop(long n);
uint64_t empty_cold_loop(long n);
extern const int disturb_branches;

static const struct candidate empty = {
	"empty", "empty loop", "-", "-", empty_warm_loop, empty_cold_loop, NULL
};

struct options {
	long rounds, inner, cold_inner, count;
	int cold;
	FILE *samples;  /* --samples: every sample, in measuring order */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts v in place; returns the median. */
static double median(double *v, long n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Ticks per core cycle: a chain of dependent adds runs at one add per
 * core cycle, so this tells how TSC ticks relate to the core clock
 * (they differ when the core runs above or below the TSC's rate).
 * Register to register: recent Intel cores fold chains of add-immediate
 * at rename and run them several per cycle. */
static double ticks_per_cycle(long rounds)
{
	double best = 1e30;
	for (long r = 0; r < rounds; r++) {
		uint64_t x = 0, t0 = tsc_ordered();
		for (int i = 0; i < 1000; i++)
#if defined(__x86_64__)
			__asm__ volatile(".rept 100\n\tadd %0, %0\n\t.endr" : "+r"(x));
#else
			__asm__ volatile(".rept 100\n\tadd %0, %0, %0\n\t.endr" : "+r"(x));
#endif
		double t = (double)(tsc_ordered() - t0) / 100000.0;
		if (t < best)
			best = t;
	}
	return best;
}

static void print_row(const struct candidate *c, const char *pred, long samples,
		      long inner, double min, double med, double emin, double emed)
{
	printf("%s,%s,%s,%s,%s,%ld,%ld,%.3f,%.3f,%.3f,%.3f\n", c->bench, c->op,
	       c->build, c->mode, pred, samples, inner, min, med, min - emin, med - emed);
}

/* One predictor state: all candidates (index n is the empty loop). */
static void measure(const struct candidate *const *c, int n, int cold,
		    const struct options *o)
{
	long inner = cold ? o->cold_inner : o->inner;
	double *v = calloc((size_t)(n + 1) * o->rounds, sizeof *v);
	if (!v) {
		perror("calloc");
		exit(1);
	}
	for (long r = 0; r < o->rounds; r++) {
		for (int k = 0; k <= n; k++) {
			int i = (int)((k + r) % (n + 1));
			uint64_t t = cold ? c[i]->cold(inner) : c[i]->warm(inner);
			v[i * o->rounds + r] = (double)t / inner;
			if (o->samples)
				fprintf(o->samples, "%s,%s,%s,%s,%s,%ld,%ld,%.3f\n", c[i]->bench,
					c[i]->op, c[i]->build, c[i]->mode,
					cold ? "cold" : "warm", r, inner, v[i * o->rounds + r]);
		}
	}
	double emin, emed;
	emed = median(&v[n * o->rounds], o->rounds);
	emin = v[n * o->rounds];
	for (int i = 0; i <= n; i++) {
		double *s = &v[i * o->rounds];
		double med = median(s, o->rounds);
		print_row(c[i], cold ? "cold" : "warm", o->rounds, inner, s[0], med,
			  emin, emed);
	}
	free(v);
}

/* Instruction counts: callgrind dumps its counters at each
 * CALLGRIND_DUMP_STATS_AT and zeroes them.  The difference between the
 * runs of 2N and N iterations is exactly N iterations: the constant
 * costs (the call of the loop function, the fences) cancel. */
static int count(const struct candidate *const *c, int n, long iters)
{
#ifdef NO_CALLGRIND
	(void)c; (void)n; (void)iters;
	fprintf(stderr, "built without <valgrind/callgrind.h>: --count unavailable\n");
	return 2;
#else
	char name[256];
	/* A dump thrown away: on AArch64 the first one counts about a
	 * hundred instructions of callgrind's own start-up. */
	CALLGRIND_ZERO_STATS;
	CALLGRIND_DUMP_STATS_AT("warm-up");
	for (int i = 0; i <= n; i++) {
		for (int twice = 1; twice <= 2; twice++) {
			/* Named first: only the loop may run between zero and dump. */
			snprintf(name, sizeof name, "%s|%s|%s|%s|%ld", c[i]->bench, c[i]->op,
				 c[i]->build, c[i]->mode, iters * twice);
			CALLGRIND_ZERO_STATS;
			c[i]->warm(iters * twice);
			CALLGRIND_DUMP_STATS_AT(name);
		}
	}
	return 0;
#endif
}

static long arg_long(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v <= 0) {
		fprintf(stderr, "not a positive number: %s\n", s);
		exit(2);
	}
	return v;
}

int harness_main(int argc, char **argv, const struct candidate *cands, int n)
{
	struct options o = { .rounds = 300, .inner = 1000, .cold_inner = 50, .cold = 1 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--no-cold"))
			o.cold = 0;
		else if (i + 1 < argc && !strcmp(a, "--rounds"))
			o.rounds = arg_long(argv[++i]);
		else if (i + 1 < argc && !strcmp(a, "--inner"))
			o.inner = arg_long(argv[++i]);
		else if (i + 1 < argc && !strcmp(a, "--cold-inner"))
			o.cold_inner = arg_long(argv[++i]);
		else if (i + 1 < argc && !strcmp(a, "--count"))
			o.count = arg_long(argv[++i]);
		else if (i + 1 < argc && !strcmp(a, "--samples")) {
			o.samples = fopen(argv[++i], "w");
			if (!o.samples) {
				perror(argv[i]);
				return 2;
			}
			fprintf(o.samples, "bench,op,build,mode,predictor,round,inner,ticks\n");
		}
		else {
			fprintf(stderr, "usage: %s [--rounds R] [--inner N] [--cold-inner M] "
				"[--no-cold] [--count N] [--samples FILE]\n", argv[0]);
			return 2;
		}
	}

	/* Candidates plus the empty loop, which goes last. */
	const struct candidate **c = calloc(n + 1, sizeof *c);
	if (!c)
		return 1;
	for (int i = 0; i < n; i++) {
		c[i] = &cands[i];
		if (c[i]->setup && c[i]->setup()) {
			fprintf(stderr, "%s %s %s %s: setup failed, not measuring\n",
				c[i]->bench, c[i]->op, c[i]->build, c[i]->mode);
			return 1;
		}
	}
	c[n] = &empty;

	int status = 0;
	if (o.count) {
		status = count(c, n, o.count);
	} else {
		printf("bench,op,build,mode,predictor,samples,inner,min,median,net_min,net_median\n");
		/* Unit: TSC ticks per iteration; the calibration row says how
		 * many ticks one core cycle took, the disturb row how many
		 * branches ran before each cold sample. */
		printf("calibration,ticks per core cycle,-,-,-,%ld,100000,%.4f,,,\n",
		       o.rounds / 10 + 1, ticks_per_cycle(o.rounds / 10 + 1));
		printf("calibration,disturb branches,-,-,-,1,1,%d,,,\n", disturb_branches);
		measure(c, n, 0, &o);
		if (o.cold)
			measure(c, n, 1, &o);
	}
	fflush(stdout);
	if (o.samples)
		fclose(o.samples);
	free(c);
	return status;
}
