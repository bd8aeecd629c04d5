/* SPDX-License-Identifier: MIT */
/*
 * Far-call gates.  A function-pointer switch may be bound to a function
 * beyond a direct branch's reach of its call sites: the C library seen
 * from a PIE executable, several GiB away on x86-64 (rel32 reaches
 * 2 GiB), or more than 128 MiB away on AArch64 (bl).  Such a site
 * branches to a gate instead, an absolute jump to the target
 * (mv_arch_gate) on a page of ours mapped within reach of the site.
 *
 * The rules a gate follows:
 *   - its page is mapped readable and executable, never writable; a gate
 *     is written through /proc/self/mem like all our code (text.c), so
 *     no page is ever writable and executable;
 *   - it is written completely before any site can branch to it: the
 *     site's own bytes go out later, in a batch whose protocol
 *     synchronizes every other thread (poke.c) before a thread can take
 *     the new branch, and text.c cleans the caches after the write
 *     (AArch64), so no thread can fetch a stale gate;
 *   - it never changes and is never unmapped: a thread may be in it at
 *     any time, and a later site binding the same target shares it.
 *     A new target gets a new gate, so the gates are as many as the
 *     distinct far targets near each module, and pages hold many.
 *
 * Pages are placed below the site first, where a process rarely maps
 * anything, then above it from the far end of reach down, to stay out
 * of the way of the heap that grows above an executable.  The caller
 * holds the runtime's lock (mv_lock), which guards the pages' records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "linux-user.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define GATE_PAGES_MAX 64
#define PLACES 32       /* candidate pages on each side of a site */

static struct gate_page {
	uintptr_t base;
	size_t used;    /* bytes of gates written from base */
} pages[GATE_PAGES_MAX];
static size_t n_pages;

static int near_enough(uintptr_t near, uintptr_t lo, uintptr_t hi)
{
	return lo >= near ? hi - near <= MV_ARCH_GATE_REACH : near - lo <= MV_ARCH_GATE_REACH;
}

/* Executable mappings were refused (seccomp, SELinux's execmem): asking
 * again at every commit would only fill an audit log. */
static int refused;

/* A fresh page within reach of near, or 0. */
static uintptr_t map_near(uintptr_t near, size_t size)
{
	uintptr_t step = (MV_ARCH_GATE_REACH / PLACES) & ~(uintptr_t)(size - 1);
	uintptr_t base = near & ~(uintptr_t)(size - 1);

	for (int i = 0; i < 2 * PLACES && !refused; i++) {
		/* below: nearest first; above: farthest first */
		uintptr_t k = i < PLACES ? (uintptr_t)i + 1 : (uintptr_t)(2 * PLACES - i);
		uintptr_t want = i < PLACES ? base - k * step : base + k * step;
		void *p;

		if ((i < PLACES && want > base) || (i >= PLACES && want < base))
			continue;       /* wrapped around the address space */
		if (!near_enough(near, want, want + size))
			continue;
		p = mmap((void *)want, size, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED) {
			refused = errno == EPERM || errno == EACCES;
			continue;
		}
		if ((uintptr_t)p == want)
			return want;
		munmap(p, size);        /* a kernel that took the address as a hint */
	}
	return 0;
}

/* A gate to target in a page near near, or NULL. */
static const void *find(uintptr_t near, const uint8_t *gate, size_t size)
{
	for (size_t i = 0; i < n_pages; i++) {
		const struct gate_page *p = &pages[i];

		if (!near_enough(near, p->base, p->base + size))
			continue;
		for (size_t off = 0; off < p->used; off += MV_ARCH_GATE_LEN)
			if (!memcmp((const void *)(p->base + off), gate, MV_ARCH_GATE_LEN))
				return (const void *)(p->base + off);
	}
	return NULL;
}

/* The page near near with room for one more gate, mapping one if none
 * has any; NULL if there is none. */
static struct gate_page *room_near(uintptr_t near, size_t size)
{
	uintptr_t base;

	for (size_t i = 0; i < n_pages; i++)
		if (near_enough(near, pages[i].base, pages[i].base + size) &&
		    pages[i].used + MV_ARCH_GATE_LEN <= size)
			return &pages[i];
	if (n_pages == GATE_PAGES_MAX || !(base = map_near(near, size)))
		return NULL;
	pages[n_pages] = (struct gate_page){ base, 0 };
	return &pages[n_pages++];
}

const void *mv_gate(uintptr_t near, const void *target)
{
	static const uint8_t unused[MV_ARCH_GATE_LEN];
	size_t size = (size_t)getpagesize();
	uint8_t gate[MV_ARCH_GATE_LEN];
	const void *found;
	struct gate_page *p;

	mv_arch_gate(gate, (uintptr_t)target);
	if ((found = find(near, gate, size)))
		return found;
	while ((p = room_near(near, size))) {
		void *at = (void *)(p->base + p->used);

		/* the check before the write: this slot of our page is unused;
		 * a page where it is not (a write that failed half-way) takes
		 * no more gates */
		if (memcmp(at, unused, sizeof unused)) {
			p->used = size;
			continue;
		}
		if (mv_text_write_new(at, gate, sizeof gate))
			return NULL;
		p->used += MV_ARCH_GATE_LEN;
		return at;
	}
	return NULL;
}
