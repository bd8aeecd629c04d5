/* SPDX-License-Identifier: MIT */
/*
 * Rewriting patch areas while other threads may be executing them: the
 * protocol of Linux's text_poke_bp, in user space.
 *
 * Every area one API call changes is queued (mv_poke_queue) and written
 * as one batch (mv_poke_flush).  With other threads in the process:
 *
 *   1. publish the batch for the trap handler;
 *   2. write a breakpoint over the first byte of every area;   sync
 *   3. write the remaining bytes of every area;                 sync
 *   4. write the first byte of every area;                      sync
 *   5. withdraw the batch; wait for trap handlers still reading it.
 *
 * That is x86-64, whose breakpoint (int3) is one byte.  On AArch64 the
 * breakpoint (brk) is a whole instruction, as every area is: step 2
 * replaces it, step 3 has nothing to write and is skipped, and step 4
 * writes the new instruction.  The architecture lets other threads see
 * those changes only between b, bl, nop and brk (mv_arch_live_safe).  A
 * batch with any other change (to or from an inlined movz, movn or ret)
 * parks every other thread instead (mv_world_stop, the protocol of
 * stop.c) and is written as if alone, below.
 *
 * "sync" makes every other thread execute a core-serializing instruction
 * (mv_cpu_sync), so none runs on bytes it fetched before the write.
 * A thread that reaches an area between steps 2 and 4 traps, and
 * mv_poke_trap() emulates the area's new instruction and resumes the
 * thread after it.  So each execution of an area runs its old or its new
 * instruction, never a mix.  No thread can be inside an area: areas
 * always hold one instruction (entry NOP or jmp, call, jmp, inlined
 * constant or NOP, or a ret followed by padding that never runs); the
 * regions of padded sites, which hold several, are changed only with
 * the other threads parked outside them (write_stopped(), region.c).
 *
 * A thread whose trap is handled only after step 4 (it was descheduled in
 * between) finds no breakpoint any more.  The handler sends it back to the
 * area's first byte to run what is there now.  For that, the runtime
 * publishes the address of every area it may patch before a batch writes
 * any (trap-tables.c).
 *
 * Each step does one write per run of adjacent pages that hold areas,
 * not one per area; the bytes between areas are rewritten with their own
 * values (write_pages).
 *
 * Alone in the process (or with the others parked), a batch whose areas
 * all lie in one page is one write: it happens whole or not at all, and
 * leaves whole instructions for this thread's own signal handlers.  A
 * larger batch takes the three steps, without syncs (no other thread ran
 * the old bytes), so that a failure leaves the same states as with
 * other threads; the thread's signals are held meanwhile, so that its
 * handlers never meet a breakpoint, whatever their masks.  The trap
 * handler is still installed, for breakpoints a failed batch leaves
 * behind.
 *
 * If the batch's first write fails, the text is as it was and the batch
 * fails with "nothing was written".  A later step that fails (a write,
 * or a sync) rolls the batch back: the trap
 * batch is first switched to emulate every area's old instruction, then
 * the old bytes are written with the same three steps.  If that fails
 * too, some areas may keep a breakpoint, with their old or new tail,
 * and no sync can be trusted to make them whole.  Such an area is
 * "stuck".  Old and new instructions are never both whole at that point
 * (old ones remain only if step 2 failed, new ones appear only in step
 * 4), so one choice covers the batch: if any area holds its new
 * instruction, the batch goes forward and the runtime reports the new
 * configuration, otherwise the old one.  The stuck table, kept for good,
 * has the trap handler emulate exactly what is reported, and every later
 * batch rewrites stuck areas through the protocol until that succeeds.
 * What the failed batch left in the text is read back (we are the only
 * writer), and that is what the check before the next write expects
 * (mv_area_matches).  So what runs always agrees with what the runtime
 * reports.
 *
 * Nothing here allocates during a batch: every buffer is sized for all
 * the areas of the tables before they grow (mv_poke_reserve).  (Deciding
 * whether a batch may make copies, mv_poke_copies_allowed(), lists the
 * threads with opendir(); if that fails, no copy is made.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "sort.h"
#include "linux-user.h"

/* A queued area.  Its address, length and new bytes are copied here, so
 * that the write steps and the trap batch read the queue in address
 * order without visiting the areas themselves, scattered over the
 * tables (a region's bytes stay with it).  32 bytes: placing the queue
 * moves each once, its fallback sort a few times. */
struct poke {
	uintptr_t at;                   /* area->addr: the queue sorts by it */
	struct mv_area *area;
	uint8_t b_want[MV_AREA_MAX];    /* what the batch wants */
	uint8_t state;
	uint8_t len;                    /* area->len */
	uint8_t wide;                   /* a region: its buffer is its own */
	uint32_t order;                 /* area->order, read by placing without
					   visiting the area again */
};
_Static_assert(sizeof(struct poke) == 32, "a queue entry is 32 bytes");

/* A region keeps this buffer with its bytes (internal.h). */
static uint8_t *want_of(struct poke *p)
{
	return p->wide ? mv_wide_want(p->area) : p->b_want;
}

static struct poke *queue, *sort_buf;
/* place_queue() put this batch in order: it filled the new bytes' trap
 * batch on the way (trap_batch()), and left the queue as it was built in
 * sort_buf, which lists the areas in the tables' order, their order in
 * memory (settle_written()). */
static int queue_placed;
static uint64_t *placed;        /* a bit per counted area (place_queue) */
static int known_stale;         /* the tables' areas changed since publishing */
static uint32_t *entry_at;      /* by order: its queue entry (place_queue) */
static size_t n_ordered;        /* areas counted by publish_known(); 0: stale */
static int others = -1;         /* other threads exist; -1: not asked yet */
static int copies = -1;         /* copies may be made; -1: not asked yet */
static int stop_world;          /* a change no running thread may see */
static size_t n_queue, cap_queue;
/* The most bytes of pages one write covers: a run of adjacent pages
 * that each hold an area (16 pages of 4 KiB, one of 64 KiB), and the end
 * of an area that crosses into the next page. */
#define RUN_BYTES 65536
static uint8_t *page_buf;       /* run_pages pages, and a region's bytes past them */
static size_t page_size, run_pages;

/* The sorted queue's runs (find_runs), each written with one write per
 * step: its entries, and its bytes from the first area's start to the
 * last one's end. */
struct run {
	uint32_t first, n, len;
};
static struct run *runs;
static size_t n_runs;
size_t mv_poke_n_stuck;
int mv_poke_forward;
int mv_poke_must_forward;

int mv_poke_reserve(size_t n_areas)
{
	struct poke *q;

	if (!page_buf) {
		page_size = (size_t)sysconf(_SC_PAGESIZE);
		run_pages = page_size < RUN_BYTES ? RUN_BYTES / page_size : 1;
		if (!(page_buf = malloc(run_pages * page_size + MV_REGION_MAX)))
			return -ENOMEM;
	}
	if (n_areas > cap_queue) {
		uint64_t *bits;
		uint32_t *at;
		struct run *r;

		if (n_areas > SIZE_MAX / sizeof *q || !(q = malloc(n_areas * sizeof *q)))
			return -ENOMEM;
		free(sort_buf);
		sort_buf = q;
		if (!(bits = calloc(n_areas / 64 + 1, sizeof *bits)))
			return -ENOMEM;
		free(placed);
		placed = bits;
		if (!(at = malloc(n_areas * sizeof *at)))
			return -ENOMEM;
		free(entry_at);
		entry_at = at;
		if (!(r = malloc(n_areas * sizeof *r)))
			return -ENOMEM;
		free(runs);
		runs = r;
		q = realloc(queue, n_areas * sizeof *q);   /* empty between batches */
		if (!q)
			return -ENOMEM;
		queue = q;
		cap_queue = n_areas;
	}
	return mv_trap_tables_reserve(n_areas);
}

/* An area captured since the count (a site first read by a later
 * commit) has its address in the known table all the same: its place
 * there, found once, is its order.  A region that holds no NOPs starts
 * where its site does; either's place puts it in the right order, and
 * the two are never in one batch. */
static __attribute__((noinline)) int find_order(struct poke *p)
{
	const struct mv_trap_table *t = mv_trap_known();
	const struct mv_trap_area *k = t && t->n == n_ordered ?
				       mv_trap_find(t, p->at) : 0;

	if (k)
		p->order = p->area->order = (uint32_t)(k - t->a);
	return 0;
}

int mv_poke_queue(struct mv_area *a, const uint8_t *bytes, int state)
{
	if (a->queued)          /* a stuck area, swept once more */
		return 0;
	if (n_queue == cap_queue)   /* the tables outgrew a failed reservation */
		return mv_error(-ENOMEM, "out of memory queueing a patch; nothing was written");
	struct poke *p = &queue[n_queue++];
	/* read before the bytes are copied, which could alias them */
	const size_t len = a->len;
	const int wide = !!a->wide;
	const uint32_t order = a->order;

	a->queued = 1;
	p->at = (uintptr_t)a->addr;
	p->area = a;
	p->len = (uint8_t)len;
	p->wide = (uint8_t)wide;
	p->state = (uint8_t)state;
	p->order = order;
	/* a region holds several instructions: see write_stopped() */
	if (wide || (!MV_ARCH_ALWAYS_LIVE_SAFE &&
		     !mv_arch_live_safe(a->stuck ? mv_alt(a) : mv_cur(a), bytes, len)))
		stop_world = 1;
	mv_copy_bytes(want_of(p), bytes, len);
	/* last, a tail call: the common path saves no register */
	return order == MV_AREA_NO_ORDER && !known_stale ? find_order(p) : 0;
}

/* Whether other threads exist, asked once per batch.  A thread that is
 * alone cannot be joined while it is inside the API: only it could start
 * one. */
static int other_threads(void)
{
	if (others < 0)
		others = mv_other_threads();
	return others;
}

/*
 * Whether this batch may put new copies of variants into regions.  Not
 * under a debugger: its breakpoints in a variant would be copied along
 * (and would stop firing for the copies).  With other threads, only if
 * none blocks the in-handler mark, which would make every stop that
 * changes a copy wait for it in vain (a mask set behind our back), so
 * that the copy could not be taken out again.  Asked once per batch.
 */
int mv_poke_copies_allowed(void)
{
	if (copies < 0)
		copies = !mv_linux_traced() && (!other_threads() || !mv_trap_thread_marked());
	return copies;
}

enum step { BREAKPOINTS, TAILS, HEADS, WHOLE };

#define BP MV_ARCH_BREAKPOINT_LEN

/* The writes this batch's steps have made; while it is 0 the text is
 * as it was, unless the failed write covered several pages and wrote
 * the first of them (queue_untouched() checks). */
static size_t writes_done;

/* The bytes step puts into the page's copy at at for area p: of what
 * the batch wants, or rolling back (back), of what the area held. */
static inline __attribute__((always_inline))
void step_bytes(enum step step, uint8_t *at, struct poke *p, int back)
{
	const uint8_t *b = back ? mv_cur(p->area) : want_of(p);

	switch (step) {
	case BREAKPOINTS: memcpy(at, MV_ARCH_BREAKPOINT, BP); break;
	case TAILS: mv_copy_bytes(at + BP, b + BP, p->len - BP); break;
	case HEADS: memcpy(at, b, BP); break;
	case WHOLE: mv_copy_bytes(at, b, p->len); break;
	}
}

/*
 * One write per run of areas in adjacent pages, at most run_pages of them
 * from the first area's page: a page that holds no area is never
 * written, so never copied on write.  The last area may cross into the
 * next page, which the buffer has room for.  Found once a batch, for
 * every step and a rollback's too.
 */
static void find_runs(void)
{
	const struct poke *q = queue;
	const size_t n = n_queue, size = page_size;
	const uintptr_t page_mask = -(uintptr_t)size;

	n_runs = 0;
	for (size_t i = 0, j; i < n; i = j) {
		const uintptr_t start = q[i].at, first = start & page_mask;
		const uintptr_t last = first + (run_pages - 1) * size;
		uintptr_t page = first, end = start;

		for (j = i; j < n; j++) {
			const uintptr_t at = q[j].at, p = at & page_mask;

			if (p != page && (p != page + size || p > last))
				break;
			page = p;
			if (at + q[j].len > end)
				end = at + q[j].len;
		}
		runs[n_runs++] = (struct run){ (uint32_t)i, (uint32_t)(j - i), (uint32_t)(end - start) };
	}
}

/* Each run's text into the buffer, the step's bytes over it, and one
 * write.  Inlined into write_step() once for each step, whose bytes
 * then cost a few moves.  The text is copied again for every step, not
 * kept from the last one: a debugger may change bytes between the areas
 * while the batch waits for a sync (its breakpoints, inserted or taken
 * out at a stop), and the write must not undo that. */
static inline __attribute__((always_inline))
int write_pages(enum step step, int back)
{
	/* locals: the byte stores into buf could alias the globals */
	struct poke *q = queue;
	uint8_t *buf = page_buf;
	const struct run *r = runs, *r_end = runs + n_runs;

	for (; r < r_end; r++) {
		struct poke *p = q + r->first, *p_end = p + r->n;
		const uintptr_t start = p->at;
		const size_t len = r->len;

		memcpy(buf, (const void *)start, len);
		for (; p < p_end; p++)
			step_bytes(step, buf + (p->at - start), p, back);
		int err = mv_text_write((void *)start, buf, len);
		if (err)
			return err;
		writes_done++;
	}
	return 0;
}

static int write_step(enum step step, int back)
{
	switch (step) {
	case BREAKPOINTS: return write_pages(BREAKPOINTS, back);
	case TAILS: return write_pages(TAILS, back);
	case HEADS: return write_pages(HEADS, back);
	default: return write_pages(WHOLE, back);
	}
}

/* Whether the (sorted) queue is one write within one page, which the
 * kernel makes whole or not at all. */
static int one_page(void)
{
	uintptr_t start = queue[0].at;

	return n_runs == 1 && (start + runs[0].len - 1) / page_size == start / page_size;
}

/* Whether an area extends past its breakpoint (x86-64, and regions), so
 * that the TAILS step writes anything. */
static int has_tails(void)
{
	for (size_t i = 0; i < n_queue; i++)
		if (queue[i].len > BP)
			return 1;
	return 0;
}

static int write_steps(int sync, int back)
{
	static const enum step steps[] = { BREAKPOINTS, TAILS, HEADS };
	int err = 0;

	for (size_t s = 0; s < 3 && !err; s++) {
		if (steps[s] == TAILS && !has_tails())
			continue;
		err = write_step(steps[s], back);
		if (!err && sync)
			err = mv_cpu_sync();
	}
	return err;
}

/* What a trap at the area at `at`, len bytes, emulates: bytes, or for a
 * region (wide: its area), which holds several instructions, its
 * equivalent eq: the call or jump its body or call stands for, as if at
 * the region's call. */
static void trap_entry(struct mv_trap_area *t, uintptr_t at, size_t len,
		       const struct mv_area *wide, const uint8_t *bytes, const uint8_t *eq)
{
	t->addr = at;
	if (wide) {
		const uint8_t *call = mv_wide_call(wide);

		t->emu = at + call[0];
		t->len = call[1];
		memcpy(t->bytes, eq, call[1]);
	} else {
		t->emu = at;
		t->len = len;
		mv_copy_bytes(t->bytes, bytes, len);
	}
}

/* A queued area, emulated as its new bytes (or, old, as what it held
 * before the batch).  The new ones come from the queue alone. */
static inline void trap_of(struct mv_trap_area *t, struct poke *p, int old)
{
	struct mv_area *wide = p->wide ? p->area : 0;

	trap_entry(t, p->at, p->len, wide, old ? mv_cur(p->area) : want_of(p),
		   wide ? mv_wide_eq(wide, !old) : 0);
}

/* The queue's areas, as trap_of() says. */
static struct mv_trap_table *trap_batch(int old)
{
	struct mv_trap_table *t = mv_trap_batch(old);

	if (!old && queue_placed)
		return t;
	t->n = n_queue;
	for (size_t i = 0; i < n_queue; i++)
		trap_of(&t->a[i], &queue[i], old);
	return t;
}

/* Publishes a new stuck table: the old one without the areas for which
 * keep() says no, with the queue's areas that are stuck now (emulated as
 * their cur bytes). */
static void update_stuck_table(int (*keep)(uintptr_t addr, const void *ctx),
			       const void *ctx)
{
	const struct mv_trap_table *t = mv_trap_stuck();
	struct mv_trap_table *b = mv_trap_stuck_spare();
	size_t n = 0, i = 0, j = 0;

	if (!t)                 /* nothing was ever reserved, or queued */
		return;

	/* Both lists are sorted by address: merge them. */
	while (i < t->n || j < n_queue) {
		uintptr_t ta = i < t->n ? t->a[i].addr : UINTPTR_MAX;
		uintptr_t qa = j < n_queue ? (uintptr_t)queue[j].area->addr : UINTPTR_MAX;

		if (ta < qa) {
			if (keep(ta, ctx))
				b->a[n++] = t->a[i];
			i++;
			continue;
		}
		if (ta == qa)
			i++;            /* the queue knows better */
		struct mv_area *a = queue[j++].area;
		if (a->stuck) {
			trap_entry(&b->a[n], (uintptr_t)a->addr, a->len, a->wide ? a : 0, mv_cur(a),
				   a->wide ? mv_wide_eq(a, 0) : 0);
			n++;
		}
	}
	b->n = n;
	mv_poke_n_stuck = n;
	mv_trap_publish_stuck();
}

static int keep_all(uintptr_t addr, const void *ctx)
{
	(void)addr, (void)ctx;
	return 1;
}

/* The queue's areas were just written whole: none of them is stuck. */
static void unstick_queue(void)
{
	int was_stuck = 0;

	for (size_t i = 0; i < n_queue; i++) {
		was_stuck |= queue[i].area->stuck;
		queue[i].area->stuck = 0;
	}
	if (was_stuck)
		update_stuck_table(keep_all, NULL);
}

struct spans {
	const struct mv_span *s;
	size_t n;
};

static int outside(uintptr_t addr, const void *ctx)
{
	const struct spans *sp = ctx;
	return !mv_in_spans(sp->s, sp->n, (const void *)addr);
}

static void known_area(struct mv_trap_area *k, uintptr_t addr, struct mv_area *a)
{
	k->addr = addr;
	k->emu = (uintptr_t)a;  /* carried through the sort: see below */
}

/* Every area address, for traps handled after their patch (header
 * comment), in the spare table that mv_reserve() sized.  The batch's table, as
 * large and unused between batches, is the sort's scratch.  Each area
 * built by now learns its place in that order (place_queue), and so
 * does its queue entry, if it is queued already; a known entry's emu is
 * never read by the handler, so it carries the area through the sort. */
static void publish_known(void)
{
	struct mv_trap_table *t = mv_trap_known_spare(), *tmp = mv_trap_batch(0);
	size_t n = 0;

	n_ordered = 0;
	if (!t || !tmp || t->cap < mv.n_fns + mv.n_sites + mv.n_regions || tmp->cap < t->cap)
		return;         /* a failed reservation, already reported */
	for (size_t i = 0; i < mv.n_fns; i++)
		known_area(&t->a[n++], (uintptr_t)mv.fns[i].entry.addr, &mv.fns[i].entry);
	for (size_t i = 0; i < mv.n_sites; i++) {
		struct mv_site *s = mv_site_if_built(i);

		known_area(&t->a[n++], (uintptr_t)(s ? s->area.addr : mv_desc_site_addr(mv_site_desc(i))),
			   s ? &s->area : 0);
		if (s && s->region)
			known_area(&t->a[n++], (uintptr_t)s->region->addr, s->region);
	}
	mv_sort(t->a, tmp->a, n, sizeof t->a[0], 1);
	t->n = n;
	mv_trap_publish_known();
	known_stale = 0;
	if (n >= MV_AREA_NO_ORDER)
		return;
	for (size_t i = 0; i < n; i++)
		if (t->a[i].emu)
			((struct mv_area *)t->a[i].emu)->order = (uint32_t)i;
	for (size_t i = 0; i < n_queue; i++)    /* queued before the count */
		queue[i].order = queue[i].area->order;
	n_ordered = n;
}

/* Areas that joined need no place in the known table before a batch
 * writes them (mv_poke_flush publishes it then), so a program that
 * never patches never sorts them.  Areas that left are dropped when
 * their module goes (mv_poke_forget). */
void mv_poke_areas_changed(void)
{
	known_stale = 1;
}

/* An unloaded module's areas go with it, stuck ones too: its addresses
 * may be reused by the next module mapped there.  The tables no longer
 * hold its records. */
void mv_poke_forget(const struct mv_span *spans, size_t n)
{
	struct spans sp = { spans, n };

	update_stuck_table(outside, &sp);
	publish_known();
}

/*
 * Puts the queue in address order without sorting it: each area's place
 * among all areas (its order, counted by publish_known() once per
 * generation, or looked up by find_order() for an area captured since)
 * marks a bit in a bitmap and records its queue entry there; the walk
 * over the bitmap's set bits then moves each entry, once, to its place
 * in sort_buf.  Returns 0, with the queue as it was, if some area has no
 * order (the count failed for memory), or if the result is not every
 * entry in strictly increasing address order after all.  Visiting each
 * entry in order anyway, it fills the trap batch of the new bytes too
 * (trap_batch()).
 */
static int place_queue(void)
{
	const struct poke *q = queue;
	struct poke *out = sort_buf;
	struct mv_trap_table *t = mv_trap_batch(0);
	const size_t n = n_queue, words = (n_ordered + 63) / 64;
	size_t k = 0, w = 0;
	uintptr_t last = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t r = q[i].order;

		if (r >= n_ordered)
			goto clear;
		placed[r / 64] |= (uint64_t)1 << (r % 64);
		entry_at[r] = (uint32_t)i;
	}
	for (; w < words; w++) {
		const uint32_t *at = entry_at + 64 * w;
		uint64_t bits = placed[w];

		placed[w] = 0;
		for (; bits; bits &= bits - 1) {
			const struct poke *p = &q[at[__builtin_ctzll(bits)]];

			if (p->at <= last)
				goto clear;
			last = p->at;
			out[k] = *p;
			trap_of(&t->a[k], &out[k], 0);
			k++;
		}
	}
	if (k != n || mv_fault(MV_FAULT_PLACE))    /* k: two areas of one order */
		return 0;
	sort_buf = queue;       /* the two are the same size */
	queue = out;
	t->n = n;
	queue_placed = 1;
	return 1;
clear:
	memset(placed + w, 0, (words - w) * sizeof *placed);
	return 0;
}

/* The queue arrives as sorted runs, one or two per function (its entry,
 * then its sites in address order).  A batch as large as the bitmap's
 * words is placed by order; otherwise mv_sort merges a few runs, and
 * sorts many by radix. */
static void sort_queue(void)
{
	struct poke *sorted;

	if (n_queue > 1 && n_queue >= n_ordered / 64 && place_queue())
		return;
	sorted = mv_sort_to(queue, sort_buf, n_queue, sizeof *queue, 1);
	if (sorted != queue) {          /* the two are the same size */
		sort_buf = queue;
		queue = sorted;
	}
}

/* The area now holds what the batch wanted: its bookkeeping says so. */
static inline void take_want(struct poke *p)
{
	struct mv_area *a = p->area;

	mv_copy_bytes(mv_cur(a), want_of(p), a->len);
	if (a->wide)
		memcpy(mv_wide_eq(a, 0), mv_wide_eq(a, 1), MV_AREA_MAX);
	a->state = p->state;
}

/* The batch was written whole: the areas hold what it wanted, none is
 * stuck, and none is queued any more.  One visit to each, in the order
 * the queue was built in where placing kept it: the areas' own, so that
 * a large batch visits them through the caches rather than scattered
 * (a fifth less time a commit at 100,000 sites). */
static void settle_written(void)
{
	struct poke *q = queue_placed ? sort_buf : queue;
	int was_stuck = 0;

	for (size_t i = 0; i < n_queue; i++) {
		struct mv_area *a = q[i].area;

		take_want(&q[i]);
		was_stuck |= a->stuck;
		a->stuck = 0;
		a->queued = 0;
	}
	if (was_stuck)
		update_stuck_table(keep_all, NULL);
}

/* After a failed step that could not be rolled back: decides, from what
 * the text holds, whether the batch went forward, and makes the areas'
 * bookkeeping say what runs. */
static void settle_stuck(void)
{
	/* Old and new are never both whole (header comment).  An area that
	 * held its new bytes before the batch tells nothing, nor does one
	 * whose new bytes are also its old ones (a stuck area swept with
	 * the bytes it is reported to run, which a rollback writes too). */
	for (size_t i = 0; i < n_queue; i++) {
		struct mv_area *a = queue[i].area;
		const uint8_t *before = a->stuck ? mv_alt(a) : mv_cur(a);
		const uint8_t *want = want_of(&queue[i]);

		if (!memcmp(a->addr, want, a->len) && memcmp(before, want, a->len) &&
		    memcmp(mv_cur(a), want, a->len))
			mv_poke_forward = 1;
	}
	/* We are the only writer: what the text holds now is exact. */
	for (size_t i = 0; i < n_queue; i++) {
		struct mv_area *a = queue[i].area;
		if (mv_poke_forward)
			take_want(&queue[i]);
		a->stuck = 1;
		memcpy(mv_alt(a), a->addr, a->len);
	}
	update_stuck_table(keep_all, NULL);
}

/* Unloading: the areas that did not even get their breakpoint, which
 * still reach into the module. */
static size_t untouched(void)
{
	size_t n = 0;

	for (size_t i = 0; i < n_queue; i++)
		n += !mv_is_breakpoint(queue[i].area->addr) &&
		     memcmp(queue[i].area->addr, want_of(&queue[i]), queue[i].area->len);
	return n;
}

/* Whether every queued area still holds what it held before the batch.
 * A run that crosses into the next page may have been written in part
 * by a write that failed (the kernel stops at the page it cannot
 * write), so a failed first write alone proves nothing. */
static int queue_untouched(void)
{
	for (size_t i = 0; i < n_queue; i++)
		if (!mv_area_matches(queue[i].area))
			return 0;
	return 1;
}

/* The protocol of the header comment; sync says whether other threads
 * may run the areas.  On failure, the queue's areas are marked stuck
 * where a breakpoint may remain. */
static int write_live(int sync)
{
	char cause[400];
	int err, rolled_back;

	if (sync) {
		err = mv_cpu_sync_ready();
		if (!err)
			err = mv_trap_ready();
	} else {
		/* Alone: only this thread's own handlers could meet a
		 * breakpoint, and they are held off (see the caller). */
		err = mv_trap_install();
	}
	if (err)
		return err;
	mv_trap_publish_batch(trap_batch(0));
	writes_done = 0;
	err = write_steps(sync, 0);
	if (!err) {
		mv_trap_publish_batch(NULL);
		return 0;
	}

	snprintf(cause, sizeof cause, "%s", multiverse_last_error());
	if (!writes_done && !mv_poke_must_forward && queue_untouched()) {
		/* The first write failed (a seccomp filter that denies
		 * pwrite() now, say): there is nothing to roll back. */
		mv_report("%s; nothing was written", cause);
		mv_trap_publish_batch(NULL);
		return err;
	}
	if (mv_poke_must_forward) {
		/* Unloading: the previous code reaches into a module about
		 * to go, so the batch may only go forward.  Its breakpoints
		 * keep emulating the new bytes; try once more to finish it. */
		if (!write_steps(sync, 0)) {
			mv_report("%s; the patch batch was completed on a second try", cause);
			mv_trap_publish_batch(NULL);
			return 0;
		}
		mv_poke_forward = 1;
		rolled_back = 0;
	} else {
		/* Back to what the areas held: emulated first, then written. */
		mv_trap_publish_batch(trap_batch(1));
		rolled_back = !write_steps(sync, 1);
	}
	if (rolled_back) {
		unstick_queue();        /* written whole, through the protocol */
		mv_report("%s; the patch batch was rolled back: the previous code "
			  "is in place", cause);
	} else {
		size_t lost = mv_poke_must_forward ? untouched() : 0;
		size_t len = strlen(cause);

		if (lost)
			snprintf(cause + len, sizeof cause - len, "; %zu areas could "
				 "not be written at all and still reach into the "
				 "module being unloaded: calling through them will "
				 "crash", lost);
		settle_stuck();
		mv_report("%s; could not roll the patch batch back: %zu areas may "
			  "keep a breakpoint, which runs their %s code; the next "
			  "patching call rewrites them", cause, n_queue,
			  mv_poke_forward ? "new" : "previous");
	}
	mv_trap_publish_batch(NULL);
	return err;
}

/* Empties the queue, whose areas are let go already (settle_written). */
static void empty_queue(void)
{
	n_queue = 0;
	others = -1;
	copies = -1;
	stop_world = 0;
	queue_placed = 0;
}

static void drop_queue(void)
{
	for (size_t i = 0; i < n_queue; i++)
		queue[i].area->queued = 0;
	empty_queue();
}

void mv_poke_cancel(void)
{
	mv_poke_forward = 0;
	drop_queue();
}

/* Alone in the process, or with every other thread parked: the thread's
 * own signal handlers are the only other code that could run the areas. */
static int write_alone(void)
{
	int err;

	if (one_page()) {
		if ((err = write_step(WHOLE, 0))) {
			char cause[400];

			snprintf(cause, sizeof cause, "%s", multiverse_last_error());
			mv_report("%s; nothing was written", cause);
		}
		return err;
	}
	err = mv_signals_hold();
	if (!err) {
		err = write_live(0);
		mv_signals_release();
	}
	return err;
}

/* Whether pc lies inside a region of the queue: a thread there would go
 * on in the middle of the new instructions.  Its first byte counts too: a
 * copied body's loop may branch back to it. */
static int inside_region(uintptr_t pc)
{
	for (size_t i = 0; i < n_queue; i++) {
		const struct mv_area *a = queue[i].area;
		if (a->wide && pc >= (uintptr_t)a->addr && pc < (uintptr_t)a->addr + a->len)
			return 1;
	}
	return 0;
}

static int has_regions(void)
{
	for (size_t i = 0; i < n_queue; i++)
		if (queue[i].area->wide)
			return 1;
	return 0;
}

/* A change that running threads may not see happen: they are parked
 * meanwhile (mv_world_stop), and the batch is written as if alone.  A
 * batch that changes regions parks them only where none is inside one,
 * nor in a signal handler, which needs every handler to carry the
 * in-handler mark (linux-user.h). */
static int write_stopped(void)
{
	int regions = has_regions(), sig;
	int err = mv_trap_ready();

	/* (Unloading cannot wait for a retry: it marks them and goes on.) */
	if (!err && regions && (sig = mv_trap_mark_handlers()) && !mv_poke_must_forward)
		err = mv_error(-EDEADLK, "cannot change inlined code now: the handler "
			       "of signal %d was installed without going through "
			       "sigaction(), unseen; it is marked now and the next call "
			       "can proceed; nothing was written", sig);
	if (!err)
		err = mv_world_stop(regions ? inside_region : 0);
	if (err)
		return err;
	err = write_alone();
	mv_world_resume();
	return err;
}

int mv_poke_flush(void)
{
	int err;

	if (!n_queue) {
		drop_queue();
		return 0;
	}
	if (known_stale)
		publish_known();
	sort_queue();
	find_runs();
	mv_poke_forward = 0;
	err = mv_text_ready();
	if (err) {
		drop_queue();
		return err;
	}
	if (!other_threads())
		err = write_alone();
	else if (stop_world)
		err = write_stopped();
	else
		err = write_live(1);
	mv_text_done();
	if (err) {
		drop_queue();
		return err;
	}
	settle_written();
	empty_queue();
	return 0;
}
