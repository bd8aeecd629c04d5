/* SPDX-License-Identifier: MIT */
/*
 * The C environment of the portable runtime in Linux user space: the
 * standard headers.  The core uses only this subset of them: malloc,
 * calloc, realloc, free and strdup; memcpy, memcmp, strlen and strstr;
 * snprintf, vsnprintf and sprintf; the errno values; the fixed-width
 * integers and their printf formats.  Another platform's env.h gives the
 * same names (runtime/platform/linux-kernel/env.h).
 */
#ifndef MV_ENV_H
#define MV_ENV_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multiverse.h"

/* Where the API hands out a buffer (the last error, the info views),
 * each thread has its own.  A C library's own libc.so may have no
 * thread-local storage for itself (musl's has none), so the runtime built
 * into one (make musl-libc: -DMV_IN_LIBC) has one buffer per process,
 * whose text another thread's call may overwrite. */
#ifdef MV_IN_LIBC
#define MV_THREAD_LOCAL
#else
#define MV_THREAD_LOCAL _Thread_local
#endif

#define MV_API __attribute__((visibility("default")))

/* How messages print an address: "%" MV_PRIaddr. */
#define MV_PRIaddr "p"

/* Padded call sites may receive copies of variants (runtime/region.c):
 * the protocol parks the other threads for it (poke.c, stop.c). */
#define MV_PLATFORM_REGIONS 1

/* The breakpoint protocol writes every instruction the encoders make
 * (platform.h, mv_poke_writable). */
#define MV_PLATFORM_WRITES_ANY 1

#endif
