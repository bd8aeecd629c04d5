/* SPDX-License-Identifier: MIT */
/* Padding runs one instruction: padding of more than one NOP starts with
 * a jump over the rest, which the compiler puts there, so that a padded
 * site runs one instruction more than a plain call, uncommitted or bound
 * by a call; commit and revert leave it, and only a copy of a variant
 * takes its place.  Padding of one NOP is that NOP. */
#include "text.h"
#include "check.h"

__attribute__((multiverse)) int mode;
long count, base = 7;

#ifdef __OPTIMIZE__
#define OPT 1       /* variants without a frame: copied */
#else
#define OPT 0
#endif

__attribute__((noinline)) long helper(long x) { count++; __asm__ volatile(""); return x; }

/* 48-byte sites: a jump and NOPs; 8-byte sites: one NOP before the call */
__attribute__((multiverse("inline", 48))) long wide(long x);
__attribute__((multiverse)) long wide(long x) { return mode ? helper(x) * 2 : helper(x) + 1; }
__attribute__((multiverse("inline", 8))) long narrow(long x);
__attribute__((multiverse)) long narrow(long x) { return mode ? helper(x) * 3 : helper(x) + 2; }
__attribute__((multiverse("inline", 48))) long copied(long x);
__attribute__((multiverse)) long copied(long x) { return mode ? x * 3 + base : x - base; }

__attribute__((noinline)) long use(long x) { return wide(x) + narrow(x) * 100 + copied(x) * 10000; }

/* Sites sized by their callees' variants (the compiler's choice, not an
 * attribute), of many lengths: variants of one to four stores (with
 * Clang on x86-64, padding of 1, 2 and 4 to 11 bytes, then 16 and 28). */
char c1, c2, c3;
short s1;
int i1, i2;
long l1;
#define STORES(name, ...) __attribute__((multiverse)) void name(int x) \
	{ if (mode) { __VA_ARGS__ } else { __VA_ARGS__ } }
STORES(st1, i1 = x;)
STORES(st2, c1 = 1;)
STORES(st4, s1 = 3;)
STORES(st5, i1 = 7;)
STORES(st6, l1 = 7;)
STORES(st7, i1 = x; i2 = x;)
STORES(st8, c1 = 1; i1 = x;)
STORES(st9, c1 = 1; c2 = 2;)
STORES(st10, s1 = 1; i1 = x;)
STORES(st11, i1 = x; i2 = 7;)
STORES(st16, c1 = 1; c2 = 2; c3 = 3;)
STORES(st28, l1 = 7; i1 = 7; s1 = 3; c1 = 1;)
static void (*const storing[])(int) = {
	st1, st2, st4, st5, st6, st7, st8, st9, st10, st11, st16, st28,
};
#define N_STORING (int)(sizeof storing / sizeof storing[0])

__attribute__((noinline)) long use_stores(int x)
{
	st1(x); st2(x); st4(x); st5(x); st6(x); st7(x);
	st8(x); st9(x); st10(x); st11(x); st16(x); st28(x);
	return c1 + c2 + c3 + s1 + i1 + i2 + l1;
}

/* Every site of every st function: its padding is one NOP or a jump
 * over NOPs; returns how many are padded. */
static int stores_padding(void)
{
	int padded = 0;

	for (int k = 0; k < N_STORING; k++) {
		const struct mv_info_site *s = multiverse_info_site(storing[k], 0);

		CHECK(s != NULL);
		if (!s || !s->pad)
			continue;
		padded++;
		if (!text_jumps_over_padding(s->addr, s->pad) &&
		    !text_one_nop((const unsigned char *)s->addr - s->pad, s->pad)) {
			fprintf(stderr, "the %u bytes of padding before site %d are neither "
				"one NOP nor a jump over NOPs\n", s->pad, k);
			CHECK(0);
		}
	}
	return padded;
}

/* fn's site: 1 if its padding jumps over itself, 0 if it is one NOP,
 * -1 otherwise */
static int padding_of(void *fn)
{
	const struct mv_info_site *s = multiverse_info_site(fn, 0);

	CHECK(s != NULL);
	if (!s)
		return -1;
	if (text_jumps_over_padding(s->addr, s->pad))
		return 1;
	return text_one_nop((const unsigned char *)s->addr - s->pad, s->pad) ? 0 : -1;
}

int main(void)
{
	CHECK_EQ(use(5), 6 + 700 + (5 - 7) * 10000);
	CHECK(multiverse_info_site(wide, 0)->pad >= 48 - 6);
	CHECK_EQ(padding_of(wide), 1);
	CHECK_EQ(padding_of(narrow), 0);
	CHECK_EQ(padding_of(copied), 1);
	CHECK_EQ(use_stores(2), 1 + 2 + 3 + 3 + 7 + 7 + 7);
	int stores_padded = stores_padding();
	CHECK(stores_padded >= (OPT ? 8 : 0));

	mode = 1;
	CHECK_EQ(multiverse_commit(), 15);
	CHECK_EQ(multiverse_info_site(wide, 0)->holds, MULTIVERSE_SITE_CALL);
	CHECK_EQ(multiverse_info_site(narrow, 0)->holds, MULTIVERSE_SITE_CALL);
	CHECK_EQ(multiverse_info_site(copied, 0)->holds,
		 OPT ? MULTIVERSE_SITE_COPIED : MULTIVERSE_SITE_CALL);
	CHECK_EQ(padding_of(wide), 1);
	CHECK_EQ(padding_of(narrow), 0);
	CHECK_EQ(padding_of(copied), OPT ? -1 : 1);     /* the copy's code */
	CHECK_EQ(use(5), 10 + 1500 + (15 + 7) * 10000);
	CHECK_EQ(use_stores(2), 1 + 2 + 3 + 3 + 7 + 7 + 7);

	mode = 0;
	CHECK(multiverse_commit() >= 3);        /* the st functions: one variant at -O2 */
	CHECK_EQ(padding_of(wide), 1);
	CHECK_EQ(use(5), 6 + 700 + (5 - 7) * 10000);

	CHECK_EQ(multiverse_revert(), 15);
	CHECK_EQ(multiverse_info_site(wide, 0)->holds, MULTIVERSE_SITE_ORIGINAL);
	CHECK_EQ(padding_of(wide), 1);
	CHECK_EQ(padding_of(narrow), 0);
	CHECK_EQ(padding_of(copied), 1);
	CHECK_EQ(use(5), 6 + 700 + (5 - 7) * 10000);
	CHECK_EQ(stores_padding(), stores_padded);
	CHECK_EQ(count, 8);
	CHECK_EQ(text_diffs(), 0);
	CHECK_DONE();
}
