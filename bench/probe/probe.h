/* SPDX-License-Identifier: MIT */
/*
 * A probe: a tracing hook that a hot function calls when it is set (the
 * LOPI measurement, issue 30).  One source, built as (each defines K, see
 * measure.h, PROBE 0 or 1, and one of):
 *   STATIC       #ifdef: no probe (PROBE=0), or a plain direct call of the
 *                hook (PROBE=1)
 *   DYNAMIC      the C idiom, if (probe) probe(x), with a plain pointer
 *                that is NULL (PROBE=0) or the hook (PROBE=1)
 *   MULTIVERSE   the same source with a function-pointer switch, a probe:
 *                committed (COMMIT) the function runs its variant for
 *                NULL, or for "not NULL" with the call bound to the hook
 */
#ifndef BENCH_PROBE_H
#define BENCH_PROBE_H

#include "measure.h"

#ifdef MULTIVERSE
#define MV __attribute__((multiverse))
#else
#define MV
#endif

#if defined(DYNAMIC) || defined(MULTIVERSE)
extern MV void (*N(probe))(long);
#endif

MV long N(work)(long x);
void N(hook)(long x);
unsigned long N(hits)(void);

#endif
