/* SPDX-License-Identifier: MIT */
/*
 * The spinlock of the paper's Figure 1, built several ways from one
 * source.  Each build defines K (the symbol prefix, see measure.h) and
 * one of:
 *   STATIC_UP, STATIC_SMP   the #ifdef CONFIG_SMP kernel: decided by the
 *                           preprocessor, no switch at all
 *   DYNAMIC                 a plain `if` on a normal global
 *   MULTIVERSE              the same `if` on a multiverse switch, with
 *                           the functions multiversed (built with
 *                           multiverse-gcc)
 */
#ifndef BENCH_LOCK_H
#define BENCH_LOCK_H

#include "measure.h"

#ifdef MULTIVERSE
#define MV __attribute__((multiverse))
#else
#define MV
#endif

typedef struct { volatile int word; } spinlock_t;

#if defined(DYNAMIC) || defined(MULTIVERSE)
extern MV _Bool N(config_smp);
#endif

MV_SITE(64) void N(spin_irq_lock)(spinlock_t *lock);
MV_SITE(32) void N(spin_irq_unlock)(spinlock_t *lock);

#endif
