/* SPDX-License-Identifier: MIT */
/*
 * The C environment of the portable runtime in the Linux kernel: the
 * names the core uses (runtime/platform/linux-user/env.h lists them),
 * given by the kernel's own functions.  Every allocation may sleep: the
 * runtime runs only in process context, under its mutex.
 */
#ifndef MV_ENV_H
#define MV_ENV_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/stdarg.h>
#include <linux/string.h>
#include <linux/types.h>

#include <linux/multiverse.h>     /* include/multiverse.h */

#define malloc(n)       kmalloc(n, GFP_KERNEL)
#define calloc(n, size) kcalloc(n, size, GFP_KERNEL)
#define realloc(p, n)   krealloc(p, n, GFP_KERNEL)
#define free(p)         kfree(p)
#define strdup(s)       kstrdup(s, GFP_KERNEL)

/* <stdint.h>'s names the kernel's headers do not give. */
typedef long intptr_t;
#define UINT32_MAX U32_MAX
#define UINT64_MAX U64_MAX

/* int64_t is long long in the kernel, on every architecture. */
#define PRId64 "lld"
#define PRIu64 "llu"

/* Messages print an address as its symbol and offset: the kernel hashes
 * a plain %p. */
#define MV_PRIaddr "pS"

/* One buffer for the last error: API calls are serialized by the
 * runtime's mutex, and a message is read right after its call. */
#define MV_THREAD_LOCAL
/* The API's symbols are exported to modules by api.c. */
#define MV_API

/* Padded call sites are bound by their call only, for now: the kernel's
 * text_poke_bp emulates single instructions (docs/kernel.md). */
#define MV_PLATFORM_REGIONS 0

/* The kernel's int3 handler emulates only some instructions, so only
 * those are written (text-<arch>.c, mv_poke_writable). */
#define MV_PLATFORM_WRITES_ANY 0

#endif
