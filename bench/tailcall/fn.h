/* SPDX-License-Identifier: MIT */
/*
 * Tail calls and indirect calls to multiversed code.  One source, built
 * as (each defines K, see measure.h, and one of):
 *   STATIC       the switch fixed by the preprocessor, no pointer switch
 *   DYNAMIC      a plain global switch and a plain function pointer
 *   MULTIVERSE   a multiverse switch and function-pointer switch
 * Three ways to reach work() are measured (loop.c):
 *   tail      a tail call (jmp) to it from a wrapper
 *   ptr       a call through an ordinary pointer to it: with multiverse
 *             that is the generic, whose entry jumps to the variant
 *   fnptr     a tail call through a function-pointer switch (dynamic: a
 *             plain pointer; static: a direct tail call)
 */
#ifndef BENCH_FN_H
#define BENCH_FN_H

#include "measure.h"

#ifdef MULTIVERSE
#define MV __attribute__((multiverse))
#else
#define MV
#endif

/* GCC's noipa keeps the wrappers real functions; Clang has no noipa, and
 * noinline is what matters here: the loop calls the wrapper, which
 * tail-calls on. */
#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif

#if defined(DYNAMIC) || defined(MULTIVERSE)
extern MV _Bool N(tracing);
extern MV_SITE(16) int (*N(op))(int);
#endif

MV_SITE(16) int N(work)(int x);
MV_PLAIN int N(target)(int x);
unsigned long N(traced)(void);

#endif
