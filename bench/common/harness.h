/* SPDX-License-Identifier: MIT */
/*
 * The micro-benchmark harness: measures a table of candidates in one
 * process, interleaved, and prints CSV.  Each benchmark's main.c lists
 * its candidates and calls harness_main().
 */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#include <stdint.h>

struct candidate {
	const char *bench;   /* spinlock, pvops, tailcall */
	const char *op;      /* what one iteration does, e.g. lock+unlock */
	const char *build;   /* static, dynamic, mv-uncommitted, mv-committed, ... */
	const char *mode;    /* UP, SMP, or "-" */
	uint64_t (*warm)(long n);
	uint64_t (*cold)(long n);
	/* Called once before measuring: sets switches, commits.  Returns 0,
	 * or nonzero if the candidate is not in the state its name claims. */
	int (*setup)(void);
};

/* Options (all optional):
 *   --rounds R       samples per candidate (round-robin, default 300)
 *   --inner N        iterations per warm sample (default 1000)
 *   --cold-inner M   iterations per cold sample (default 50)
 *   --no-cold        skip the cold-predictor samples
 *   --samples FILE   also write every sample (ticks per iteration) there
 *   --count N        instead of timing: run each warm loop for N and 2N
 *                    iterations between callgrind dumps (see
 *                    tools/callgrind_counts.py); run under callgrind.
 * Returns the process exit status. */
int harness_main(int argc, char **argv, const struct candidate *c, int n);

#endif
