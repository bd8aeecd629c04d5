/* SPDX-License-Identifier: MIT */
/*
 * Makes the next measured call run with "cold" branch predictors, the
 * situation the paper argues a kernel path is in (its §1): the dynamic
 * build's test of the switch then risks a misprediction that the
 * committed build, which has no test, cannot suffer.
 *
 * How: DISTURB_WORDS x 64 conditional branches, each at its own address
 * and each taken or not by one bit of a fresh pseudo-random word.  The
 * branches fill the global branch history with noise, so a
 * history-indexed prediction for the measured branch is looked up under
 * a history it never saw, and they overwrite pattern-table and
 * target-buffer entries that alias with the measured code.  Their taken
 * arms hold a real instruction (volatile asm), so the compiler can
 * neither turn them into conditional moves nor drop them.
 *
 * The same disturbance runs before every candidate, the empty loop
 * included, and its own ticks are outside the timed region.  It also
 * evicts some instruction cache (about 12 bytes of code per branch), so a
 * cold sample includes some of that cost too, for all candidates alike.
 */
#include <stdint.h>

#ifndef DISTURB_WORDS
#define DISTURB_WORDS 16
#endif

static uint64_t state = 0x9e3779b97f4a7c15ull;

static inline uint64_t next_random(void)
{
	/* xorshift64: fast, and plenty random for a branch predictor. */
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

#if defined(__x86_64__)
#define BR(k) if (r & (1ull << (k))) __asm__ volatile("add $" #k ", %0" : "+r"(acc));
#else
#define BR(k) if (r & (1ull << (k))) __asm__ volatile("add %0, %0, #" #k : "+r"(acc));
#endif
#define BR8(k) BR(k) BR(k + 1) BR(k + 2) BR(k + 3) BR(k + 4) BR(k + 5) BR(k + 6) BR(k + 7)
#define WORD { uint64_t r = next_random(); \
	BR8(0) BR8(8) BR8(16) BR8(24) BR8(32) BR8(40) BR8(48) BR8(56) }
#define WORD4 WORD WORD WORD WORD
#define WORD16 WORD4 WORD4 WORD4 WORD4

uint64_t disturb_sink;

void disturb_predictors(void)
{
	uint64_t acc = 0;
#if DISTURB_WORDS == 16
	WORD16
#elif DISTURB_WORDS == 64
	WORD16 WORD16 WORD16 WORD16
#else
#error "DISTURB_WORDS must be 16 or 64"
#endif
	disturb_sink = acc;
}

/* For the report: how many branches one disturbance executes. */
const int disturb_branches = DISTURB_WORDS * 64;
