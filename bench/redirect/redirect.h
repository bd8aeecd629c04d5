/* SPDX-License-Identifier: MIT */
/*
 * A live update: calls of a function OLD that, once the program runs,
 * must reach a new version NEW instead (issue item 5; README.md, "Live
 * updates").  One source, built as (each defines K, see measure.h, and
 * one of):
 *   DIRECT       the caller calls NEW itself: what one would write knowing
 *                the new version at compile time
 *   TABLE        the call goes through an entry of a table of function
 *                pointers, loaded on every call (how PSU makes functions
 *                updatable); setup writes NEW into the entry, which held
 *                OLD
 *   REDIRECTED   the caller calls OLD, a plain multiversed function;
 *                setup redirects it to NEW (multiverse_redirect)
 * and with FAR, NEW is in a shared object: for DIRECT one linked with the
 * program (the call goes through the PLT), for TABLE and REDIRECTED one
 * loaded with dlopen (the redirected call goes through a far-call gate).
 * OLD, the table and the caller are always in the executable.
 */
#ifndef BENCH_REDIRECT_H
#define BENCH_REDIRECT_H

#include "measure.h"

#ifdef REDIRECTED
#define MV __attribute__((multiverse))
#else
#define MV
#endif

/* What OLD and NEW return: setup tells which one ran. */
#define OLD_RESULT(x) ((long)(x) + 1)
#define NEW_RESULT(x) ((long)(x) + 2)

/* The table's entry for the function (PSU's handle). */
#define HANDLE 2
#define TABLE_SIZE 4

MV long N(old)(long x);
long N(new)(long x);
extern long (*N(table)[TABLE_SIZE])(long);

/* The shared object with the far NEWs of TABLE and REDIRECTED, loaded
 * beyond a direct call's reach (main.c); NULL if it cannot be. */
void *redirect_module(void);

#define BENCH_STR2(x) #x
#define BENCH_STR(x) BENCH_STR2(x)

#endif
