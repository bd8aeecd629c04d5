/* SPDX-License-Identifier: MIT */
/* The callees: work() with a tracing switch that is off in every build
 * measured, and target(), which a function-pointer switch selects. */
#include "fn.h"

#if defined(STATIC)
#define TRACING 0            /* #ifdef CONFIG_TRACING, off */
#else
MV _Bool N(tracing);
#define TRACING N(tracing)
MV int (*N(op))(int) = N(target);
#endif

static unsigned long n_traced;

MV int N(work)(int x)
{
	if (TRACING)
		n_traced++;
	return x + 1;
}

MV_PLAIN int N(target)(int x)
{
	return x + 2;
}

unsigned long N(traced)(void) { return n_traced; }
