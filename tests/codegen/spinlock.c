/* SPDX-License-Identifier: MIT */
/*
 * The spinlock of the paper's first example.  Each committed variant must
 * be the code of the #ifdef build with the same setting.  On AArch64 the
 * switch sits next to `taken` in .bss; unless the plugin keeps it out of
 * the section-anchor block, `taken` moves off the anchor and the variant
 * forms its address with one instruction more (gcc/anchors.cc).
 *
 * codegen: spin_lock.multiverse.0 spin_lock -DSTATIC_SMP=0
 * codegen: spin_lock.multiverse.1 spin_lock -DSTATIC_SMP=1
 * codegen: spin_unlock.multiverse.1 spin_unlock -DSTATIC_SMP=1
 */
#ifdef STATIC_SMP
#define MV
#define smp STATIC_SMP
#else
#define MV __attribute__((multiverse))
MV _Bool smp;
#endif

typedef struct { int word; } spinlock_t;

static volatile int irq_flag = 1;
static unsigned long taken;

MV void spin_lock(spinlock_t *l)
{
	irq_flag = 0;
	if (smp) {
		while (__atomic_exchange_n(&l->word, 1, __ATOMIC_ACQUIRE))
			;
		taken++;
	}
}

MV void spin_unlock(spinlock_t *l)
{
	if (smp)
		__atomic_store_n(&l->word, 0, __ATOMIC_RELEASE);
	irq_flag = 1;
}

unsigned long spin_taken(void) { return taken; }
