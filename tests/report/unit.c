/* SPDX-License-Identifier: MIT */
/* What the compile report must say (check.py): a function specialized on
 * two switches whose variants partly merge at -O2, one whose switches
 * are written or read through a pointer, one over the variant limit
 * (max-variants=8), one that reads no switch (and one more at the end). */
#include <multiverse.h>

MULTIVERSE_VALUES(0, 1, 2) int mode;
MULTIVERSE _Bool fast;
MULTIVERSE int level;
MULTIVERSE_VALUES(0, 1, 2, 3) int a;
MULTIVERSE_VALUES(0, 1, 2) int b;
struct cfg {
	MULTIVERSE int on;
} cfg;

MULTIVERSE int none(int x);

/* (the call is a recorded site inside each variant: its label must not
 * count as code) */
MULTIVERSE int spec(int x)
{
	return (mode == 2 ? x * 3 : fast ? x + 1 : x) + none(x);
}

MULTIVERSE int dyn(int x, struct cfg *p)
{
	level = x;
	return level + p->on;
}

MULTIVERSE int wide(int x)
{
	return a * x + b;
}

MULTIVERSE int none(int x)
{
	return x + 1;
}

/* Variants that may be copied into their call sites: GCC's report says
 * so, and the call below is padded for them. */
int base;
MULTIVERSE int small(int x)
{
	return fast ? x * 3 + base : x * 2 - base;
}

int use_small(int x)
{
	return small(x) + 1;
}

/* An empty asm statement (a compiler barrier) emits nothing, so it does
 * not keep a variant from being copied; one that emits code does. */
MULTIVERSE int fenced(int x)
{
	__asm__ volatile("" ::: "memory");
	return fast ? x + base : x;
}

MULTIVERSE int hinted(int x)
{
	__asm__ volatile("nop");
	return fast ? x + base : x;
}
