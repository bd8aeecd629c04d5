/* SPDX-License-Identifier: MIT */
/*
 * What padding costs a call site before commit, and what a copy saves
 * after: calls to one function, whose sites are unpadded, padded as the
 * compiler chooses by default (the unit defines the function: its
 * largest inlinable variant), padded to 16 bytes (one NOP before the
 * call on x86-64) and to 64 (a jump over the rest), in one process.
 * Each candidate has a switch of its own, so that committing one leaves
 * the others as they are.
 *
 *   make padding [COMPILER=clang]; build/padding --no-cold
 *   tools/callgrind_counts.py build/padding
 */
#include <multiverse.h>
#include <stdint.h>

#include "harness.h"
#include "measure.h"

/* The mode-1 variant stores three words: longer than a call (20 bytes
 * on x86-64), so the default pads its sites with a jump over NOPs. */
#define FUNCTION(k, attr, copies)                                                 \
	__attribute__((multiverse)) int k##_mode;                           \
	attr void k##_fn(long *p);                                          \
	__attribute__((multiverse)) void k##_fn(long *p)                    \
	{                                                                   \
		if (k##_mode) {                                             \
			p[0] += 3;                                          \
			p[1] ^= p[0];                                       \
			p[2] = p[1] + 7;                                    \
		} else {                                                    \
			p[3]++;                                             \
		}                                                           \
	}                                                                   \
	static long k##_words[4];                                           \
	static uint64_t k##_warm(long n)                                    \
	{                                                                   \
		uint64_t t0 = tsc_ordered();                                \
		for (long i = 0; i < n; i++) {                              \
			k##_fn(k##_words);                                  \
			k##_fn(k##_words);                                  \
			barrier();                                          \
		}                                                           \
		return tsc_ordered() - t0;                                  \
	}                                                                   \
	static uint64_t k##_cold(long n)                                    \
	{                                                                   \
		uint64_t sum = 0;                                           \
		for (long i = 0; i < n; i++) {                              \
			disturb_predictors();                               \
			uint64_t t0 = tsc_ordered();                        \
			k##_fn(k##_words);                                  \
			k##_fn(k##_words);                                  \
			barrier();                                          \
			sum += tsc_ordered() - t0;                          \
		}                                                           \
		return sum;                                                 \
	}                                                                   \
	/* before commit: the generic, called */                            \
	__attribute__((unused)) static int k##_uncommitted(void)                                  \
	{                                                                   \
		k##_mode = 1;                                               \
		return multiverse_is_committed(k##_fn) != 0;                \
	}                                                                   \
	/* after: the variant, copied where the site holds it */            \
	__attribute__((unused)) static int k##_committed(void)                                    \
	{                                                                   \
		const struct mv_info_fn *f;                                 \
		const struct mv_info_site *s;                               \
		k##_mode = 1;                                               \
		if (multiverse_commit_refs(&k##_mode) < 0)                  \
			return 1;                                           \
		/* (each a snapshot, taken now) */                          \
		f = multiverse_info_fn(k##_fn);                             \
		s = multiverse_info_site(k##_fn, 0);                        \
		return !f || !s || f->n_sites_inlined !=                    \
		       (copies ? f->n_sites : 0);                           \
	}

/* name, size, whether commit copies the variant into the sites */
FUNCTION(unpadded, __attribute__((multiverse("inline", 0))), 0)
FUNCTION(defaulted, , 1)
FUNCTION(nop, __attribute__((multiverse("inline", 16))), 0)
FUNCTION(jump, __attribute__((multiverse("inline", 64))), 1)
FUNCTION(unpadded_c, __attribute__((multiverse("inline", 0))), 0)
FUNCTION(defaulted_c, , 1)
FUNCTION(nop_c, __attribute__((multiverse("inline", 16))), 0)
FUNCTION(jump_c, __attribute__((multiverse("inline", 64))), 1)

#define CAND(k, build, setup) \
	{ "padding", "2 calls", build, "-", k##_warm, k##_cold, k##_##setup }

static const struct candidate candidates[] = {
	CAND(unpadded, "unpadded-uncommitted", uncommitted),
	CAND(defaulted, "default-uncommitted", uncommitted),
	CAND(nop, "pad16-uncommitted", uncommitted),
	CAND(jump, "pad64-uncommitted", uncommitted),
	CAND(unpadded_c, "unpadded-committed", committed),
	CAND(defaulted_c, "default-committed", committed),
	CAND(nop_c, "pad16-committed", committed),
	CAND(jump_c, "pad64-committed", committed),
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, candidates,
			    sizeof candidates / sizeof candidates[0]);
}
