/* SPDX-License-Identifier: MIT */
/*
 * Sorting records by the address words they start with.
 *
 * Not qsort(): it calls back for every comparison, and musl's moves
 * records a byte at a time; sorting the tables with it was half of the
 * start-up of every program of a multiversed musl (case-studies/musl).
 * Most of what the runtime sorts arrives as a few sorted runs: the tables
 * after the last merge, a batch's areas function by function, the known
 * areas callee by callee.  A natural merge sort merges those runs
 * pairwise, so it takes a pass or two where qsort() takes n log n calls.
 * (A module's call sites come in many short runs, calls to two callees
 * interleaved; tables.c sorts small orders for them, and moves each
 * large record once.)
 *
 * mv_sort(base, tmp, n, size, words) sorts n records of size bytes (a
 * struct that starts with its key words), stably, by their first `words`
 * uintptr_t words in turn; tmp holds n records.
 */
#ifndef MV_SORT_H
#define MV_SORT_H

#include "env.h"

/* Inlined into each caller, whose record size and key length are
 * constants: the comparisons and moves then compile to a few
 * instructions, where generic ones cost more than the sort saved. */
#define MV_SORT_INLINE static inline __attribute__((always_inline))

/* x's key words are before y's. */
MV_SORT_INLINE int mv_sort_before(const void *x, const void *y, unsigned words)
{
	const uintptr_t *a = x, *b = y;

	for (unsigned i = 0; i < words; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return 0;
}

/* The end of the sorted run that starts at i. */
MV_SORT_INLINE size_t mv_sort_run_end(const char *a, size_t i, size_t n, size_t size, unsigned words)
{
	while (++i < n && !mv_sort_before(a + i * size, a + (i - 1) * size, words))
		;
	return i;
}

MV_SORT_INLINE size_t mv_sort_count_runs(const char *a, size_t n, size_t size, unsigned words)
{
	size_t runs = 0;

	for (size_t i = 0; i < n; i = mv_sort_run_end(a, i, n, size, words))
		runs++;
	return runs;
}

/* Takes from the right run only what is strictly before the left run's
 * head, so records with equal keys keep their order. */
MV_SORT_INLINE size_t mv_sort_merge_pass(const char *src, char *dst, size_t n, size_t size, unsigned words)
{
	size_t runs = 0, out = 0;

	for (size_t i = 0; i < n; runs++) {
		size_t a = i, a_end = mv_sort_run_end(src, i, n, size, words);
		size_t b = a_end, b_end = b < n ? mv_sort_run_end(src, b, n, size, words) : b;

		while (a < a_end || b < b_end) {
			size_t from = b < b_end && (a == a_end ||
				      mv_sort_before(src + b * size, src + a * size, words)) ? b++ : a++;

			memcpy(dst + out++ * size, src + from * size, size);
		}
		i = b_end;
	}
	return runs;
}

MV_SORT_INLINE void mv_sort(void *base, void *tmp, size_t n, size_t size, unsigned words)
{
	char *src = base, *dst = tmp;
	size_t runs = mv_sort_count_runs(src, n, size, words);

	while (runs > 1) {
		char *t;

		runs = mv_sort_merge_pass(src, dst, n, size, words);
		t = src, src = dst, dst = t;
	}
	if (src != base)
		memcpy(base, src, n * size);
}

#endif
