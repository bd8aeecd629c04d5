/* SPDX-License-Identifier: MIT */
/*
 * mv_sort (runtime/sort.h) against a reference sort: every order of
 * input the runtime meets (sorted, a few runs, interleaved callees,
 * reversed, random, all keys equal), one- and two-word keys, and that
 * records with equal keys keep their order.  mv_sort picks the bucket,
 * the merge or the radix sort by cost, so each is also checked on its
 * own, on small and large inputs, keys whose differing bits are few,
 * many, high, and not a multiple of the radix digit; and the bucket sort
 * takes inputs of up to 16 callees, their sites in order or not, and
 * declines more.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"

#define CHECK(c) do { if (!(c)) { \
	printf("sort: %s, n %zu: line %d: %s\n", shape, n, __LINE__, #c); exit(1); } } while (0)

struct rec {
	uintptr_t key[2];
	size_t arrived;           /* the input position: stability */
	char pad[13];             /* a size that is no power of two */
};

#define MAX 20000
static struct rec in[MAX], got[MAX], want[MAX], tmp[MAX];
static const char *shape;
static size_t n;

static unsigned ref_words;

/* The reference: qsort() by key, then by arrival, which is stable. */
static int compare(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	for (unsigned i = 0; i < ref_words; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return (x->arrived > y->arrived) - (x->arrived < y->arrived);
}

static void reference(unsigned words)
{
	memcpy(want, in, n * sizeof *in);
	ref_words = words;
	qsort(want, n, sizeof *want, compare);
}

enum how { CHOSEN, MERGE, RADIX, BUCKETS };

/* What the bucket sort must do with the shape at hand, by key words:
 * take it (1), decline it (0), or either (-1). */
static int buckets_take[3];

static void sort_by(enum how how, unsigned words)
{
	void *at;

	if (how == CHOSEN) {
		if (words == 1)
			mv_sort(got, tmp, n, sizeof *got, 1);
		else
			mv_sort(got, tmp, n, sizeof *got, 2);
		return;
	}
	if (how == BUCKETS) {
		at = words == 1 ? mv_sort_buckets(got, tmp, n, sizeof *got, 1) :
				  mv_sort_buckets(got, tmp, n, sizeof *got, 2);
		if (buckets_take[words] >= 0)
			CHECK(!!at == buckets_take[words]);
		if (!at) {              /* declined, having written nothing */
			for (size_t i = 0; i < n; i++)
				CHECK(got[i].arrived == i);
			for (size_t i = 0; i < sizeof tmp; i++)
				CHECK(((unsigned char *)tmp)[i] == 0xa5);
			reference(words);
			memcpy(got, want, n * sizeof *got);
			return;
		}
	} else if (how == MERGE)
		at = words == 1 ? mv_sort_merge(got, tmp, n, sizeof *got, 1) :
				  mv_sort_merge(got, tmp, n, sizeof *got, 2);
	else
		at = words == 1 ? mv_sort_radix(got, tmp, n, sizeof *got, 1) :
				  mv_sort_radix(got, tmp, n, sizeof *got, 2);
	CHECK(at == got || at == tmp);
	if (at == tmp)
		memcpy(got, tmp, n * sizeof *got);
}

static void check_by(enum how how, unsigned words)
{
	memcpy(got, in, n * sizeof *in);
	memset(tmp, 0xa5, sizeof tmp);
	sort_by(how, words);
	reference(words);
	for (size_t i = 0; i < n; i++) {
		CHECK(got[i].key[0] == want[i].key[0]);
		if (words == 2)
			CHECK(got[i].key[1] == want[i].key[1]);
		CHECK(got[i].arrived == want[i].arrived);
		CHECK(!memcmp(got[i].pad, in[got[i].arrived].pad, sizeof got[i].pad));
	}
}

static void check(unsigned words)
{
	check_by(CHOSEN, words);
	check_by(MERGE, words);
	check_by(RADIX, words);
	check_by(BUCKETS, words);
}

static uint64_t state = 88172645463325252u;

static uintptr_t rnd(void)
{
	state ^= state << 13, state ^= state >> 7, state ^= state << 17;
	return (uintptr_t)state;
}

static void make(const char *name, size_t count, int kind)
{
	shape = name;
	n = count;
	buckets_take[1] = buckets_take[2] = -1;
	for (size_t i = 0; i < n; i++) {
		struct rec *r = &in[i];

		switch (kind) {
		case 0: r->key[0] = i, r->key[1] = 0; break;              /* sorted */
		case 1: r->key[0] = (i % 97) * 16, r->key[1] = i; break;  /* runs of 97 */
		case 2: r->key[0] = 0x1000 + (i & 1) * 0x10, r->key[1] = 0x400000 + i; break;
		case 3: r->key[0] = n - i, r->key[1] = 0; break;          /* reversed */
		case 4: r->key[0] = rnd() % 50, r->key[1] = rnd() % 3; break;
		case 5: r->key[0] = 7, r->key[1] = 7; break;              /* all equal */
		case 6: r->key[0] = rnd(), r->key[1] = rnd(); break;      /* high bits too */
		case 7: /* a whole-program batch: one run per function, spread */
			r->key[0] = 0x555555400000u + (i % 100) * 0x4a0 + (i / 100) * 0x3b, r->key[1] = 0;
			break;
		case 8: r->key[0] = rnd() & 0x1ffff8, r->key[1] = rnd() % 5; break; /* 18 bits */
		case 9: /* 16 callees, each one's sites in order */
			r->key[0] = 0x401000 + rnd() % 16 * 0x40, r->key[1] = 0x402000 + i * 5;
			break;
		case 10: /* 17 callees: too many */
			r->key[0] = 0x401000 + i * 7 % 17 * 0x40, r->key[1] = 0x402000 + i * 5;
			break;
		case 11: /* three callees, one site out of order (in cold code) */
			r->key[0] = 0x401000 + i % 3 * 0x40;
			r->key[1] = i == n / 2 ? 0x401000 : 0x402000 + i * 5;
			break;
		case 12: /* three callees, each one's sites in many runs */
			r->key[0] = 0x401000 + i % 3 * 0x40, r->key[1] = 0x402000 + rnd() % 64;
			break;
		}
		r->arrived = i;
		for (size_t k = 0; k < sizeof r->pad; k++)
			r->pad[k] = (char)(i * 31 + k);
	}
	if (kind == 2 || kind == 5 || kind == 9 || kind == 11 || kind == 12 || (kind == 10 && n < 17))
		buckets_take[1] = buckets_take[2] = 1;
	if (kind == 10 && n >= 17)
		buckets_take[1] = buckets_take[2] = 0;
	check(1);
	check(2);
}

int main(void)
{
	static const char *names[] = { "sorted", "runs", "two callees interleaved",
		"reversed", "random with repeats", "all equal", "random",
		"a batch of 100 functions", "random low bits", "16 callees",
		"17 callees", "a site out of order", "three callees, runs" };
	static const size_t sizes[] = { 0, 1, 2, 3, 7, 64, 255, 600, 5000, MAX };

	for (int kind = 0; kind < 13; kind++)
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
			make(names[kind], sizes[s], kind);
	printf("sort: ok\n");
	return 0;
}
