/* SPDX-License-Identifier: MIT */
/*
 * The caller side of the spinlock benchmark, in its own translation unit
 * as in the kernel (spinlocks are out of line there), so no build can
 * inline the lock functions or know which registers they use.
 *
 * Built like lock.c, plus SMP_MODE (0 or 1: the mode a dynamic or
 * multiverse build runs in) and COMMIT (multiverse builds that commit).
 */
#include <stdio.h>

#include "lock.h"

#ifdef MULTIVERSE
#include <multiverse.h>
#endif

static spinlock_t lock;

DEFINE_WARM(pair, N(spin_irq_lock)(&lock); N(spin_irq_unlock)(&lock))
DEFINE_COLD(pair, N(spin_irq_lock)(&lock); N(spin_irq_unlock)(&lock))

unsigned long N(locks_taken)(void);

/* Puts this build in its mode, then checks the code does what the mode
 * says: on SMP the lock word is taken, on UP never. */
int N(setup)(void)
{
#if defined(DYNAMIC) || defined(MULTIVERSE)
	N(config_smp) = SMP_MODE;
#endif
#ifdef COMMIT
	if (multiverse_commit_refs(&N(config_smp)) < 0 ||
	    multiverse_is_committed(N(spin_irq_lock)) != 1 ||
	    multiverse_is_committed(N(spin_irq_unlock)) != 1) {
		fprintf(stderr, "commit failed: %s\n", multiverse_last_error());
		return 1;
	}
#endif
	unsigned long before = N(locks_taken)();
	N(spin_irq_lock)(&lock);
	N(spin_irq_unlock)(&lock);
	return (N(locks_taken)() - before) != SMP_MODE;
}
