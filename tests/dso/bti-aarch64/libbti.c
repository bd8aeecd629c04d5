/* SPDX-License-Identifier: MIT */
/* Functions whose first instruction signs the return address (paciasp,
 * pacibsp), built for BTI: the entry patch area gets a bti c before it.
 * -nostartfiles: Debian's crt files carry no BTI property, and one input
 * without it would leave the whole library unprotected. */
// mvflags: -mbranch-protection=standard -nostartfiles
#include "bti.h"

__attribute__((multiverse)) int bti_mode;

__attribute__((noinline)) int bti_twice(int x)
{
	__asm__ volatile("");
	return x * 2;
}

/* Not a leaf, so its prologue starts by signing with the A key. */
__attribute__((multiverse)) int bti_a(int x)
{
	return bti_twice(x) + (bti_mode ? 100 : 200);
}

/* The same with the B key. */
__attribute__((multiverse, target("branch-protection=pac-ret+b-key+bti")))
int bti_b(int x)
{
	return bti_twice(x) + (bti_mode ? 300 : 400);
}
