/* SPDX-License-Identifier: MIT */
/* The native operations, and the pointers that select them.  The same
 * text for every build. */
#include "irq.h"

volatile int N(irq_flag) = 1;

MV_PLAIN void N(native_irq_disable)(void) { N(irq_flag) = 0; }
MV_PLAIN void N(native_irq_enable)(void) { N(irq_flag) = 1; }

#if defined(INDIRECT) || defined(MULTIVERSE)
MV void (*N(pv_irq_disable))(void) = N(native_irq_disable);
MV void (*N(pv_irq_enable))(void) = N(native_irq_enable);
#endif
