/* SPDX-License-Identifier: MIT */
/*
 * The spinlock of the paper's Figure 1: on a uniprocessor a lock only has
 * to disable interrupts; with SMP it must also take the lock word.  Linux
 * chooses with #ifdef CONFIG_SMP at build time.  Here one binary decides at
 * run time, and after multiverse_commit() the UP build of the lock costs
 * what the #ifdef build would.
 *
 * The demo prints what the plugin specialized, what commit patched, how a
 * bound switch behaves, and cycles per lock/unlock pair before and after
 * commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <x86intrin.h>
#include <multiverse.h>

typedef struct { volatile int word; } spinlock_t;

__attribute__((multiverse)) _Bool config_smp;

/* Stands in for the interrupt flag, which user space cannot touch: like
 * cli/sti a store sets a state (a counter would chain every iteration
 * through the same memory word and hide everything else). */
static volatile int irqs_off;
static unsigned long locks_taken;   /* lock words acquired */

static inline void arch_irq_disable(void) { irqs_off = 1; }
static inline void arch_irq_enable(void) { irqs_off = 0; }

static inline void arch_spin_lock(spinlock_t *l)
{
	while (__atomic_exchange_n(&l->word, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	locks_taken++;
}

static inline void arch_spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->word, 0, __ATOMIC_RELEASE);
}

__attribute__((multiverse)) void spin_irq_lock(spinlock_t *l)
{
	arch_irq_disable();
	if (config_smp)
		arch_spin_lock(l);
}

__attribute__((multiverse)) void spin_irq_unlock(spinlock_t *l)
{
	if (config_smp)
		arch_spin_unlock(l);
	arch_irq_enable();
}

static spinlock_t lock;

/* Cycles per lock/unlock pair, one run. */
static double cycles_per_pair(void)
{
	enum { N = 100000 };

	_mm_lfence();
	uint64_t t0 = __rdtsc();
	_mm_lfence();
	for (int i = 0; i < N; i++) {
		spin_irq_lock(&lock);
		spin_irq_unlock(&lock);
	}
	_mm_lfence();
	return (double)(__rdtsc() - t0) / N;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Dynamic (reverted) and committed runs alternate, so that whatever else
 * the machine does affects both alike; min and median of each. */
static void compare(double dyn[2], double com[2])
{
	enum { RUNS = 21 };
	double d[RUNS], c[RUNS];

	for (int r = 0; r < RUNS; r++) {
		multiverse_revert();
		d[r] = cycles_per_pair();
		multiverse_commit();
		c[r] = cycles_per_pair();
	}
	qsort(d, RUNS, sizeof *d, by_value);
	qsort(c, RUNS, sizeof *c, by_value);
	dyn[0] = d[0], dyn[1] = d[RUNS / 2];
	com[0] = c[0], com[1] = c[RUNS / 2];
}

static void show(const char *what)
{
	const struct mv_info_fn *l = multiverse_info_fn(spin_irq_lock);
	const struct mv_info_fn *u = multiverse_info_fn(spin_irq_unlock);
	printf("  %-34s lock: %-9s unlock: %-9s (sites inlined: %u + %u)\n", what,
	       l->committed ? "variant" : "generic", u->committed ? "variant" : "generic",
	       l->n_sites_inlined, u->n_sites_inlined);
}

int main(void)
{
	const struct mv_info_fn *l = multiverse_info_fn(spin_irq_lock);
	const struct mv_info_fn *u = multiverse_info_fn(spin_irq_unlock);
	printf("Specialized by the plugin:\n");
	printf("  spin_irq_lock:   %u variants, %u call sites\n", l->n_variants, l->n_sites);
	printf("  spin_irq_unlock: %u variants, %u call sites\n\n", u->n_variants, u->n_sites);

	printf("Bound and unbound behaviour:\n");
	config_smp = 1;
	locks_taken = 0;
	spin_irq_lock(&lock); spin_irq_unlock(&lock);
	printf("  uncommitted, config_smp=1: lock word taken %lu time(s)\n", locks_taken);

	config_smp = 0;
	int changed = multiverse_commit();
	printf("  multiverse_commit() with config_smp=0 changed %d function(s)\n", changed);
	show("after commit (UP):");
	config_smp = 1;   /* bound: no effect until the next commit */
	locks_taken = 0;
	spin_irq_lock(&lock); spin_irq_unlock(&lock);
	printf("  config_smp=1 without commit:      lock word taken %lu time(s) (still UP code)\n",
	       locks_taken);
	multiverse_commit();
	locks_taken = 0;
	spin_irq_lock(&lock); spin_irq_unlock(&lock);
	printf("  config_smp=1 after commit:        lock word taken %lu time(s)\n\n", locks_taken);

	printf("TSC ticks per lock/unlock pair (21 alternating runs, min / median):\n");
	printf("  %-5s %17s %17s\n", "mode", "dynamic", "committed");
	for (int smp = 0; smp <= 1; smp++) {
		double dyn[2], com[2];

		config_smp = smp;
		compare(dyn, com);
		printf("  %-5s %8.2f / %6.2f %8.2f / %6.2f\n", smp ? "SMP" : "UP",
		       dyn[0], dyn[1], com[0], com[1]);
	}
	printf("  (a tight loop keeps the switch's branch predicted; bench/ also\n"
	       "   measures a cold predictor and the #ifdef builds)\n");
	multiverse_revert();
	return irqs_off != 0;
}
