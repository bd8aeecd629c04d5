/* SPDX-License-Identifier: MIT */
/*
 * Sorting records by the address words they start with.
 *
 * Not qsort(): it calls back for every comparison, and musl's moves
 * records a byte at a time; sorting the tables with it was half of the
 * start-up of every program of a multiversed musl (case-studies/musl).
 *
 * Three sorts, and the cheaper one for the input at hand:
 *   - a bucket sort takes inputs of few first key words, each one's
 *     records mostly in order of the second, interleaved: the call
 *     sites of a module that tables.c does not place by callee, a small
 *     one (a C library's 115 calls to __lock and __unlock) or one
 *     calling a module not registered yet.  One pass counts the records
 *     of each first word, one moves each to its bucket, and each bucket
 *     not in order yet is merged (its own runs: sites in cold code, say);
 *   - a natural merge sort merges the sorted runs the input arrives in,
 *     pairwise: the tables after the last merge, a batch of one function
 *     (its entry, then its sites in address order) take a pass or two;
 *   - an LSD radix sort, 11 bits of the key at a time, where the runs
 *     are many and short: the known addresses of every area, a
 *     whole-program batch (one run per function; user space places its
 *     batches by those addresses instead, poke.c), and a module's call
 *     sites to many callees.  Only the bits in which
 *     the keys differ cost passes: the addresses of one module's code
 *     differ in their low 20 bits or so, two passes, whatever their
 *     number (a batch over the program and shared libraries, four or
 *     five).
 * All three are stable, which the tables rely on (tables.c).
 *
 * mv_sort(base, tmp, n, size, words) sorts n records of size bytes (a
 * struct that starts with its key words), stably, by their first `words`
 * uintptr_t words in turn; tmp holds n records (mv_sort_to() leaves them
 * in whichever of the two the last pass wrote).  The caller holds the
 * runtime's lock: the radix sort's counts are static.
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

/* The radix sort takes this many bits of a key word per pass. */
#define MV_SORT_DIGIT 11

/* One pass of the radix sort: src's records by the digit at bit `shift`
 * of key word `w`, stably, into dst. */
MV_SORT_INLINE void mv_sort_radix_pass(const char *src, char *dst, size_t n, size_t size,
				       unsigned w, unsigned shift)
{
	static size_t at[1 << MV_SORT_DIGIT];
	const uintptr_t mask = (1 << MV_SORT_DIGIT) - 1;
	size_t sum = 0;

	memset(at, 0, sizeof at);
	for (size_t i = 0; i < n; i++)
		at[((const uintptr_t *)(src + i * size))[w] >> shift & mask]++;
	for (size_t d = 0; d <= mask; d++) {
		size_t c = at[d];

		at[d] = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++) {
		const char *r = src + i * size;

		memcpy(dst + at[((const uintptr_t *)r)[w] >> shift & mask]++ * size, r, size);
	}
}

/* The bits of key word w in which some record differs from the first. */
MV_SORT_INLINE uintptr_t mv_sort_varying(const char *a, size_t n, size_t size, unsigned w)
{
	uintptr_t first = ((const uintptr_t *)a)[w], differ = 0;

	for (size_t i = 1; i < n; i++)
		differ |= ((const uintptr_t *)(a + i * size))[w] ^ first;
	return differ;
}

/* The lowest and one past the highest bit set in differ, nonzero. */
MV_SORT_INLINE unsigned mv_sort_low_bit(uintptr_t differ)
{
	return (unsigned)__builtin_ctzll(differ);
}

MV_SORT_INLINE unsigned mv_sort_high_bit(uintptr_t differ)
{
	return 64 - (unsigned)__builtin_clzll(differ);
}

/* The passes the radix sort makes over a word whose keys differ in
 * differ's bits. */
MV_SORT_INLINE unsigned mv_sort_digits(uintptr_t differ)
{
	if (!differ)
		return 0;
	return (mv_sort_high_bit(differ) - mv_sort_low_bit(differ) + MV_SORT_DIGIT - 1) /
	       MV_SORT_DIGIT;
}

#define MV_SORT_WORDS_MAX 2

/* The two sorts, each returning the buffer that holds the result. */
MV_SORT_INLINE void *mv_sort_merge(void *base, void *tmp, size_t n, size_t size, unsigned words)
{
	char *src = base, *dst = tmp, *t;

	while (mv_sort_merge_pass(src, dst, n, size, words) > 1)
		t = src, src = dst, dst = t;
	return n > 1 ? dst : base;
}

MV_SORT_INLINE void *mv_sort_radix(void *base, void *tmp, size_t n, size_t size, unsigned words)
{
	char *src = base, *dst = tmp, *t;

	for (unsigned w = words; w-- > 0;) {
		uintptr_t differ = n ? mv_sort_varying(src, n, size, w) : 0;

		if (!differ)
			continue;
		for (unsigned b = mv_sort_low_bit(differ); b < mv_sort_high_bit(differ);
		     b += MV_SORT_DIGIT) {
			mv_sort_radix_pass(src, dst, n, size, w, b);
			t = src, src = dst, dst = t;
		}
	}
	return src;
}

/* The bucket sort takes inputs with at most this many first key words. */
#define MV_SORT_BUCKETS 16

/* The bucket of first key word k among the n in key[], looked up from
 * hint, the last one found (records of one callee come together). */
MV_SORT_INLINE unsigned mv_sort_bucket(const uintptr_t *key, unsigned n, uintptr_t k, unsigned hint)
{
	if (hint < n && key[hint] == k)
		return hint;
	for (unsigned b = 0; b < n; b++)
		if (key[b] == k)
			return b;
	return n;
}

/*
 * Sorts into tmp, stably, an input of at most MV_SORT_BUCKETS distinct
 * first key words, and returns tmp; returns NULL, having written nothing,
 * for an input of more.
 */
MV_SORT_INLINE void *mv_sort_buckets(void *base, void *tmp, size_t n, size_t size, unsigned words)
{
	uintptr_t key[MV_SORT_BUCKETS];
	size_t at[MV_SORT_BUCKETS], sum = 0;
	unsigned order[MV_SORT_BUCKETS], k = 0, b = 0;
	char *a = base, *t = tmp;

	for (size_t i = 0; i < n; i++) {
		uintptr_t first = *(const uintptr_t *)(a + i * size);

		b = mv_sort_bucket(key, k, first, b);
		if (b == k) {
			if (k == MV_SORT_BUCKETS)
				return 0;
			key[k] = first;
			at[k++] = 0;
		}
		at[b]++;
	}
	/* the buckets in key order; each starts where the ones before end */
	for (unsigned i = 0; i < k; i++) {
		unsigned j = i;

		for (; j > 0 && key[order[j - 1]] > key[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (unsigned i = 0; i < k; i++) {
		size_t c = at[order[i]];

		at[order[i]] = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++) {
		const char *r = a + i * size;

		b = mv_sort_bucket(key, k, *(const uintptr_t *)r, b);
		memcpy(t + at[b]++ * size, r, size);
	}
	/* each bucket by the other words, with base's same stretch to spare;
	 * at[] now says where each ends */
	for (unsigned i = 0; words > 1 && i < k; i++) {
		size_t from = i ? at[order[i - 1]] : 0, m = at[order[i]] - from;
		char *sorted;

		if (mv_sort_count_runs(t + from * size, m, size, words) <= 1)
			continue;
		sorted = mv_sort_merge(t + from * size, a + from * size, m, size, words);
		if (sorted != t + from * size)
			memcpy(t + from * size, sorted, m * size);
	}
	return tmp;
}

/* Sorts as mv_sort() does, with whichever sort costs less for the input,
 * and returns the buffer that holds the sorted records: base or tmp.
 * The caller can use it where it lands. */
MV_SORT_INLINE void *mv_sort_to(void *base, void *tmp, size_t n, size_t size, unsigned words)
{
	size_t runs = mv_sort_count_runs(base, n, size, words), merges = 0;
	unsigned radix = 0;
	void *sorted;

	if (runs <= 1)
		return base;
	/* A count and a move per record, and a merge of each bucket's own
	 * runs, against a merge of every run; a try that fails stops at
	 * the 17th first word. */
	if (runs > 2 && words <= MV_SORT_WORDS_MAX &&
	    (sorted = mv_sort_buckets(base, tmp, n, size, words)))
		return sorted;
	for (size_t r = runs - 1; r; r >>= 1)
		merges++;               /* ceil(log2(runs)) passes */
	for (unsigned w = 0; w < words && w < MV_SORT_WORDS_MAX; w++)
		radix += mv_sort_digits(mv_sort_varying(base, n, size, w));
	/* A merge pass costs a comparison and a move per record; a radix
	 * pass two looks at the key and a move per record, and clearing and
	 * summing its counts: small inputs merge. */
	if (words <= MV_SORT_WORDS_MAX &&
	    radix * (3 * ((size_t)1 << MV_SORT_DIGIT) + 3 * n) < merges * 2 * n)
		return mv_sort_radix(base, tmp, n, size, words);
	return mv_sort_merge(base, tmp, n, size, words);
}

MV_SORT_INLINE void mv_sort(void *base, void *tmp, size_t n, size_t size, unsigned words)
{
	void *sorted = mv_sort_to(base, tmp, n, size, words);

	if (sorted != base)
		memcpy(base, sorted, n * size);
}

#endif
