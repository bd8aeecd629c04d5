/* SPDX-License-Identifier: MIT */
/*
 * Timed loops for the micro-benchmarks.  Every loop.c includes this and
 * defines its loops with DEFINE_WARM and DEFINE_COLD, so all candidates,
 * and the empty loop that is subtracted from them, run the same loop code.
 *
 * Cycles are TSC ticks read with rdtsc between lfences: lfence waits until
 * every earlier instruction has completed locally, so the measured calls
 * can neither start before the first read nor finish after the second.
 * (Linux's rdtsc_ordered does the same; the paper used it.)
 *
 * AArch64 builds exist for instruction counts only (the README says why:
 * they run emulated); their "ticks" are the virtual counter, read
 * between isb, and are never reported.
 */
#ifndef BENCH_MEASURE_H
#define BENCH_MEASURE_H

#include <stdint.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* Gives each build's symbols a prefix: N(spin_irq_lock) is
 * static_up_spin_irq_lock when compiled with -DK=static_up, so that all
 * builds of one source link into one program and are measured in turn. */
#define BENCH_CAT2(a, b) a##_##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)
#define N(name) BENCH_CAT(K, name)

/* A multiversed function or function-pointer switch whose call sites
 * are n bytes in builds with -DMV_INLINE, so that commit can copy a
 * variant of up to that size into them (the README's "Bodies inlined at
 * call sites"); in other multiverse builds, MV (each header's). */
#if defined(MULTIVERSE) && defined(MV_INLINE)
#define MV_SITE(n) __attribute__((multiverse("inline", n)))
#else
#define MV_SITE(n) MV
#endif

/* A function that a padded function-pointer switch points to, in builds
 * with -DMV_INLINE: multiversed without reading a switch (a plain one),
 * so that the compiler describes its code and commit can copy it into
 * the switch's call sites. */
#if defined(MULTIVERSE) && defined(MV_INLINE)
#define MV_PLAIN __attribute__((multiverse))
#else
#define MV_PLAIN
#endif

static inline uint64_t tsc_ordered(void)
{
#if defined(__x86_64__)
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
#else
	uint64_t t;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(t) :: "memory");
#endif
	return t;
}

/* The spin-wait hint: pause, yield. */
#if defined(__x86_64__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() __asm__ volatile("yield" ::: "memory")
#endif

/* Keeps the compiler from deleting or merging loop iterations, also in
 * the empty loop. */
#define barrier() __asm__ volatile("" ::: "memory")

/* Thrashes the branch predictors: defined in common/disturb.c. */
void disturb_predictors(void);

/* N(warm_op)(n): ticks for n back-to-back executions of body.  The
 * branch predictor is as warm as it gets. */
#define DEFINE_WARM(op, body)                                 \
	uint64_t N(warm_##op)(long n)                         \
	{                                                     \
		uint64_t t0 = tsc_ordered();                  \
		for (long i = 0; i < n; i++) {                \
			body;                                 \
			barrier();                            \
		}                                             \
		return tsc_ordered() - t0;                    \
	}

/* N(cold_op)(n): summed ticks of n executions of body, each timed on
 * its own right after disturb_predictors() ran. */
#define DEFINE_COLD(op, body)                                 \
	uint64_t N(cold_##op)(long n)                         \
	{                                                     \
		uint64_t sum = 0;                             \
		for (long i = 0; i < n; i++) {                \
			disturb_predictors();                 \
			uint64_t t0 = tsc_ordered();          \
			body;                                 \
			barrier();                            \
			sum += tsc_ordered() - t0;            \
		}                                             \
		return sum;                                   \
	}

#endif
