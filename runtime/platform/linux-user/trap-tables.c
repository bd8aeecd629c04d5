/* SPDX-License-Identifier: MIT */
/*
 * The tables the breakpoint trap handler reads (mv_poke_trap), and their
 * memory.
 *
 * Three tables, each swapped in whole by the API call that owns the lock
 * while handlers may read the previous one:
 *   - the batch being written, emulated as its new (or, while rolling
 *     back, its old) bytes: published only during a batch;
 *   - the stuck table: areas a failed batch left with a breakpoint, kept
 *     for good (poke.c);
 *   - the known addresses: every area the runtime may patch, for a trap
 *     handled only after its breakpoint was replaced.
 *
 * No batch allocates: a batch that unloads a module must succeed whatever
 * memory is left, since the previous code reaches into that module.  So
 * every table, and its spare for the next swap, is sized for every area
 * of the tables when they grow (mv_trap_tables_reserve), before the new
 * records are merged.  A table in use is replaced, never resized.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "linux-user.h"

static struct mv_trap_table *batch_new, *batch_old;
static struct mv_trap_table *published;   /* the batch, while it is written */
static struct mv_trap_table *stuck, *stuck_spare;
static struct mv_trap_table *known, *known_spare;
static int handlers_busy;
static unsigned long generation;          /* bumped by every swap */

/* Handlers count themselves in before they load a published pointer, so
 * once a pointer is swapped and the count has been zero, no handler still
 * holds the old value. */
static struct mv_trap_table *swap(struct mv_trap_table **slot,
				  struct mv_trap_table *t)
{
	struct mv_trap_table *old;

	__atomic_add_fetch(&generation, 1, __ATOMIC_SEQ_CST);
	old = __atomic_exchange_n(slot, t, __ATOMIC_SEQ_CST);

	while (__atomic_load_n(&handlers_busy, __ATOMIC_SEQ_CST))
		sched_yield();
	return old;
}

static struct mv_trap_table *alloc_table(size_t cap)
{
	struct mv_trap_table *t;

	if (cap > (SIZE_MAX - sizeof *t) / sizeof t->a[0])
		return NULL;
	t = malloc(sizeof *t + cap * sizeof t->a[0]);
	if (t) {
		t->cap = cap;
		t->n = 0;
	}
	return t;
}

/* An unpublished table with room for cap areas. */
static int grow_spare(struct mv_trap_table **spare, size_t cap)
{
	struct mv_trap_table *t;

	if (*spare && (*spare)->cap >= cap)
		return 0;
	if (!(t = alloc_table(cap)))
		return -ENOMEM;
	free(*spare);
	*spare = t;
	return 0;
}

/* A published table with room for cap areas: a larger copy replaces it. */
static int grow_published(struct mv_trap_table **slot, size_t cap)
{
	struct mv_trap_table *t, *old = *slot;

	if (old && old->cap >= cap)
		return 0;
	if (!(t = alloc_table(cap)))
		return -ENOMEM;
	if (old) {
		t->n = old->n;
		memcpy(t->a, old->a, old->n * sizeof old->a[0]);
	}
	free(swap(slot, t));
	return 0;
}

int mv_trap_tables_reserve(size_t n_areas)
{
	if (grow_spare(&batch_new, n_areas) || grow_spare(&batch_old, n_areas) ||
	    grow_spare(&stuck_spare, n_areas) || grow_published(&stuck, n_areas) ||
	    grow_spare(&known_spare, n_areas) || grow_published(&known, n_areas))
		return -ENOMEM;
	return 0;
}

struct mv_trap_table *mv_trap_batch(int old)
{
	return old ? batch_old : batch_new;
}

void mv_trap_publish_batch(struct mv_trap_table *t)
{
	swap(&published, t);
}

const struct mv_trap_table *mv_trap_stuck(void)
{
	return stuck;
}

struct mv_trap_table *mv_trap_stuck_spare(void)
{
	return stuck_spare;
}

void mv_trap_publish_stuck(void)
{
	stuck_spare = swap(&stuck, stuck_spare);
}

struct mv_trap_table *mv_trap_known_spare(void)
{
	return known_spare;
}

void mv_trap_publish_known(void)
{
	known_spare = swap(&known, known_spare);
}

const struct mv_trap_table *mv_trap_known(void)
{
	return known;
}

const struct mv_trap_area *mv_trap_find(const struct mv_trap_table *t, uintptr_t at)
{
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->a[mid].addr == at)
			return &t->a[mid];
		if (t->a[mid].addr < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Async-signal-safe: no locks, no allocation.  cpu->ip is the address
 * after the breakpoint.  Returns 1 if the trap was ours and cpu is set to
 * resume the thread.
 *
 * The order matters.  The batch being written is looked up before the
 * text is read: a batch is withdrawn only after its last step, so if it
 * is gone, a breakpoint it wrote is gone too, and a first byte that is
 * no breakpoint means a whole instruction (a known area: run it).  Only
 * a breakpoint no batch explains is looked up among the stuck areas.  A
 * table swapped meanwhile (the generation moved) means another look;
 * tables loaded while counted in are neither freed nor refilled.
 */
int mv_poke_trap(struct mv_cpu *cpu)
{
	uintptr_t at = cpu->ip - MV_ARCH_TRAP_PC_AFTER;
	const struct mv_trap_area *t;
	unsigned long gen;
	int ours = 0;

	__atomic_add_fetch(&handlers_busy, 1, __ATOMIC_SEQ_CST);
	do {
		gen = __atomic_load_n(&generation, __ATOMIC_SEQ_CST);
		t = mv_trap_find(__atomic_load_n(&published, __ATOMIC_SEQ_CST), at);
		if (!t && !mv_is_breakpoint((const volatile uint8_t *)at)) {
			if (mv_trap_find(__atomic_load_n(&known, __ATOMIC_SEQ_CST), at)) {
				cpu->ip = at;
				ours = 1;
			}
			break;
		}
		if (!t)
			t = mv_trap_find(__atomic_load_n(&stuck, __ATOMIC_SEQ_CST), at);
		if (t) {
			struct mv_cpu c = *cpu;
			if (!mv_arch_emulate(t->bytes, t->len, t->emu, &c)) {
				*cpu = c;
				ours = 1;
			}
			break;
		}
	} while (gen != __atomic_load_n(&generation, __ATOMIC_SEQ_CST));
	__atomic_sub_fetch(&handlers_busy, 1, __ATOMIC_SEQ_CST);
	return ours;
}

/*
 * A SIGTRAP that is no breakpoint report (our own stop's, or one sent by
 * kill()) may have taken the place of one: signals below SIGRTMIN do not
 * queue, so the kernel drops the breakpoint's SIGTRAP while another is
 * pending.  On x86-64 the thread is then left one byte into an area that
 * has, or had, our int3 at its start: one of the batch being written or
 * of the stuck areas.  No running thread is otherwise ever there: an area
 * is one instruction, and a region's first instruction is not run while
 * its breakpoint is in place, nor is a thread let inside a region that a
 * batch changes (stop.c).  Such a thread is sent back to the area's start,
 * to trap again or to run what is there now.  Reads no text.
 * Async-signal-safe.
 */
void mv_poke_lost_trap(struct mv_cpu *cpu)
{
	uintptr_t at = cpu->ip - 1;

	if (!MV_ARCH_TRAP_PC_AFTER)
		return;
	__atomic_add_fetch(&handlers_busy, 1, __ATOMIC_SEQ_CST);
	if (mv_trap_find(__atomic_load_n(&published, __ATOMIC_SEQ_CST), at) ||
	    mv_trap_find(__atomic_load_n(&stuck, __ATOMIC_SEQ_CST), at))
		cpu->ip = at;
	__atomic_sub_fetch(&handlers_busy, 1, __ATOMIC_SEQ_CST);
}

/* In a child of fork(): only the forking thread is left, and it is in no
 * handler, whatever the count said when the parent's threads were. */
void mv_trap_tables_forked(void)
{
	handlers_busy = 0;
}
