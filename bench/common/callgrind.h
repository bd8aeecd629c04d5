/* SPDX-License-Identifier: MIT */
/* Callgrind's client requests, which zero and dump its counters around
 * what a program measures.  Without valgrind's header the counting modes
 * cannot work (NO_CALLGRIND says so); timing can. */
#ifndef BENCH_CALLGRIND_H
#define BENCH_CALLGRIND_H

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#define NO_CALLGRIND 1
#endif

#endif
