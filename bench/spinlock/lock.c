/* SPDX-License-Identifier: MIT */
/*
 * spin_irq_lock/unlock: disable "interrupts", and on SMP take the lock
 * word.  User space cannot execute cli/sti, so a store to a flag stands
 * in for them: like cli and sti it sets a state and does not nest.  (A
 * nesting counter, irq_depth++, would chain every iteration to the last
 * through store forwarding, about 5 cycles each, and that chain would
 * hide everything else the loop does.)  The lock word is taken with an
 * atomic exchange, as in Linux.
 *
 * Every build compiles this same text; only the definition of SMP
 * below differs.
 */
#include "lock.h"

#if defined(STATIC_UP)
/* #ifdef CONFIG_SMP, off.  The paper writes the #ifdef around the call;
 * `if (0)` compiles to the same code at -O2 (the instruction counts in
 * the results show it) and keeps one text for all builds. */
#define SMP 0
#elif defined(STATIC_SMP)
#define SMP 1
#else
MV _Bool N(config_smp);
#define SMP N(config_smp)
#endif

static volatile int irq_flag = 1;
static unsigned long locks_taken;

static inline void arch_irq_disable(void) { irq_flag = 0; barrier(); }
static inline void arch_irq_enable(void) { barrier(); irq_flag = 1; }

static inline void arch_spin_lock(spinlock_t *l)
{
	while (__atomic_exchange_n(&l->word, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	locks_taken++;
}

static inline void arch_spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->word, 0, __ATOMIC_RELEASE);
}

MV void N(spin_irq_lock)(spinlock_t *l)
{
	arch_irq_disable();
	if (SMP)
		arch_spin_lock(l);
}

MV void N(spin_irq_unlock)(spinlock_t *l)
{
	if (SMP)
		arch_spin_unlock(l);
	arch_irq_enable();
}

/* For setup checks: did the lock word get taken? */
unsigned long N(locks_taken)(void) { return locks_taken; }
