/* SPDX-License-Identifier: MIT */
/*
 * The PV-ops analog (paper §6.1): interrupt disable/enable behind a
 * function pointer that is set once, at start-up, to the native
 * implementation.  Builds (each defines K, see measure.h, and one of):
 *   INDIRECT     a plain global function pointer: an indirect call
 *   MULTIVERSE   the same pointer as a multiverse function-pointer
 *                switch: indirect until commit, a direct call after
 *   STATIC       no pointer: a direct call to the native function, as a
 *                kernel built without paravirtualization support
 *   INLINE       the native body inlined at the call site, what Linux's
 *                own PV-ops patching achieves for cli/sti (reference)
 */
#ifndef BENCH_IRQ_H
#define BENCH_IRQ_H

#include "measure.h"

#ifdef MULTIVERSE
#define MV __attribute__((multiverse))
#else
#define MV
#endif

/* Stands in for the interrupt flag: user space cannot run cli/sti.  One
 * store, like the one instruction of the native operation. */
extern volatile int N(irq_flag);

MV_PLAIN void N(native_irq_disable)(void);
MV_PLAIN void N(native_irq_enable)(void);

#if defined(INDIRECT) || defined(MULTIVERSE)
extern MV_SITE(16) void (*N(pv_irq_disable))(void);
extern MV_SITE(16) void (*N(pv_irq_enable))(void);
#define irq_disable() N(pv_irq_disable)()
#define irq_enable() N(pv_irq_enable)()
#elif defined(STATIC)
#define irq_disable() N(native_irq_disable)()
#define irq_enable() N(native_irq_enable)()
#elif defined(INLINE)
#define irq_disable() (N(irq_flag) = 0)
#define irq_enable() (N(irq_flag) = 1)
#endif

#endif
