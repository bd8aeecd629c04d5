/* SPDX-License-Identifier: MIT */
/*
 * mv_sort (runtime/sort.h) against a plain insertion sort: every order of
 * input the runtime meets (sorted, a few runs, interleaved callees,
 * reversed, random, all keys equal), one- and two-word keys, and that
 * records with equal keys keep their order.
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

#define MAX 600
static struct rec in[MAX], got[MAX], want[MAX], tmp[MAX];
static const char *shape;
static size_t n;

static int less(const struct rec *x, const struct rec *y, unsigned words)
{
	for (unsigned i = 0; i < words; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i];
	return 0;
}

static void reference(unsigned words)
{
	memcpy(want, in, n * sizeof *in);
	for (size_t i = 1; i < n; i++) {
		struct rec r = want[i];
		size_t j = i;

		for (; j > 0 && less(&r, &want[j - 1], words); j--)
			want[j] = want[j - 1];
		want[j] = r;
	}
}

static void check(unsigned words)
{
	memcpy(got, in, n * sizeof *in);
	memset(tmp, 0xa5, sizeof tmp);
	if (words == 1)
		mv_sort(got, tmp, n, sizeof *got, 1);
	else
		mv_sort(got, tmp, n, sizeof *got, 2);
	reference(words);
	for (size_t i = 0; i < n; i++) {
		CHECK(got[i].key[0] == want[i].key[0]);
		if (words == 2)
			CHECK(got[i].key[1] == want[i].key[1]);
		CHECK(got[i].arrived == want[i].arrived);
		CHECK(!memcmp(got[i].pad, in[got[i].arrived].pad, sizeof got[i].pad));
	}
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
		}
		r->arrived = i;
		for (size_t k = 0; k < sizeof r->pad; k++)
			r->pad[k] = (char)(i * 31 + k);
	}
	check(1);
	check(2);
}

int main(void)
{
	static const char *names[] = { "sorted", "runs", "two callees interleaved",
		"reversed", "random with repeats", "all equal", "random" };
	static const size_t sizes[] = { 0, 1, 2, 3, 7, 64, 255, MAX };

	for (int kind = 0; kind < 7; kind++)
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
			make(names[kind], sizes[s], kind);
	printf("sort: ok\n");
	return 0;
}
