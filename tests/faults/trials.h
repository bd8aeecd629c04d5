/* SPDX-License-Identifier: MIT */
/*
 * A sequence of API calls failing at every point: trial(kind, n, keep)
 * runs the sequence with the n-th fault of kind injected, once or (keep)
 * from then on, and returns how many such points the sequence reached.
 * Shared by the fault tests that drive one sequence (probes.c,
 * redirect.c).
 */
#ifndef TRIALS_H
#define TRIALS_H

void __multiverse_fault(int kind, long n, int keep_failing);
long __multiverse_fault_calls(int kind);

enum { F_WRITE, F_SYNC, F_OPEN, F_ALLOC };
static const char *const kind_name[] = { "write", "sync", "open", "alloc" };

/* Whether a failed call failed for the fault, not for anything else. */
static int failed_for_fault(void)
{
	const char *e = multiverse_last_error();

	return strstr(e, "injected") || strstr(e, "out of memory") ||
	       strstr(e, "Too many open files");
}

/* Runs steps calls, step(i) each, with the n-th fault of kind injected
 * (from then on if keep_failing), checking after each that what the
 * runtime reports runs (check(when)); returns how many points of kind
 * the calls reached, with the fault gone. */
static long fault_sequence(int kind, long n, int keep_failing, int steps, int (*step)(int i),
			   void (*check)(const char *when))
{
	char when[128];
	long calls;

	__multiverse_fault(kind, n, keep_failing);
	for (int i = 0; i < steps; i++) {
		int r = step(i);

		snprintf(when, sizeof when, "%s fault #%ld%s, step %d returned %d",
			 kind_name[kind], n, keep_failing ? " and after" : "", i, r);
		if (r < 0 && !failed_for_fault())
			LIVE_FAIL("%s: %s", when, multiverse_last_error());
		check(when);
	}
	calls = __multiverse_fault_calls(kind);
	__multiverse_fault(kind, 0, 0);
	return calls;
}

/* Every point of every kind, once and from then on; the number of points. */
static int run_trials(long (*trial)(int kind, long n, int keep_failing))
{
	static const int kinds[] = { F_OPEN, F_WRITE, F_ALLOC };
	int points = 0;

	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		for (int keep = 0; keep <= 1; keep++) {
			long n = 1;
			while (trial(kinds[k], n, keep) >= n && n < 200 &&
			       !atomic_load(&live_failures))
				n++;
			points += (int)n - 1;
		}
	printf("%d fault points\n", points);
	return points;
}

#endif
