/* SPDX-License-Identifier: MIT */
/* The probed function and the hook (see probe.h).  The hook is a real
 * function in every build: it is the call being measured, not inlined. */
#include "probe.h"

#if defined(STATIC)
#define PROBED PROBE
#define CALL_PROBE(x) N(hook)(x)
#else
MV void (*N(probe))(long);
#define PROBED (N(probe) != 0)
#define CALL_PROBE(x) N(probe)(x)
#endif

static unsigned long n_hits;

#ifdef __clang__
__attribute__((noinline))
#else
__attribute__((noipa))
#endif
void N(hook)(long x)
{
	n_hits += x;
}

MV long N(work)(long x)
{
	if (PROBED)
		CALL_PROBE(x);
	return x + 1;
}

unsigned long N(hits)(void) { return n_hits; }
