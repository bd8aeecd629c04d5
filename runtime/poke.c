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
 * "sync" makes every other thread execute a core-serializing instruction
 * (mv_cpu_sync), so none runs on bytes it fetched before the write.
 * A thread that reaches an area between steps 2 and 4 traps, and
 * mv_poke_trap() emulates the area's new instruction and resumes the
 * thread after it.  So each execution of an area runs its old or its new
 * instruction, never a mix.  No thread can be inside an area: areas
 * always hold one instruction (entry NOP or jmp, call, jmp, inlined
 * constant or NOP, or a ret followed by padding that never runs).
 *
 * A thread whose trap is handled only after step 4 (it was descheduled in
 * between) finds no breakpoint any more.  The handler sends it back to the
 * area's first byte to run what is there now.  For that, mv_poke_known()
 * publishes the address of every area the runtime may patch.
 *
 * Each step does one write per page it touches, not one per area; the
 * bytes between areas are rewritten with their own values.
 *
 * Alone in the process, the batch is written in one step: no other
 * thread can run the areas, and each write leaves whole instructions for
 * this thread's own signal handlers.
 *
 * A step that fails (a write, or a sync) rolls the batch back: the trap
 * batch is first switched to emulate every area's old instruction, then
 * the old bytes are written with the same three steps.  If that fails
 * too, some areas may keep a breakpoint, with their old or new tail,
 * and no sync can be trusted to make them whole.  Such an area is
 * "stuck": the runtime reports it as holding its old instruction, a
 * table kept for good (stuck_table) has the trap handler emulate exactly
 * that, and every later batch rewrites it through the protocol until
 * that succeeds.  What the failed batch left in its text is read back
 * (we are the only writer), and that is what the check before the next
 * write expects (mv_poke_matches).  So what runs always agrees with what
 * the runtime reports.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "multiverse.h"
#include "platform.h"

struct poke {
	struct mv_area *area;
	uint8_t bytes[MV_AREA_MAX];     /* what the current step writes */
	uint8_t want[MV_AREA_MAX];      /* what the batch wants */
	uint8_t state;
};

/* What the trap handler may read: no pointers into the tables, which
 * move when modules are merged. */
struct trap_area {
	uintptr_t addr;
	uint8_t len;
	uint8_t bytes[MV_AREA_MAX];
};

struct trap_batch {
	size_t n;
	struct trap_area a[];
};

struct known {
	size_t n;
	uintptr_t addr[];
};

static struct poke *queue;
static size_t n_queue, cap_queue;

static struct trap_batch *published;
static struct trap_batch *stuck_table;
static struct known *known;
static int handlers_busy;
size_t mv_poke_n_stuck;
int mv_poke_forward;
int mv_poke_must_forward;

int mv_poke_queue(struct mv_area *a, const uint8_t *bytes, int state)
{
	if (n_queue == cap_queue) {
		size_t cap = cap_queue ? 2 * cap_queue : 64;
		struct poke *q = realloc(queue, cap * sizeof *q);
		if (!q)
			return mv_error(-ENOMEM, "out of memory queueing a patch");
		queue = q;
		cap_queue = cap;
	}
	if (a->queued)          /* a stuck area, swept once more */
		return 0;
	a->queued = 1;
	queue[n_queue].area = a;
	memcpy(queue[n_queue].bytes, bytes, a->len);
	memcpy(queue[n_queue].want, bytes, a->len);
	queue[n_queue].state = state;
	n_queue++;
	return 0;
}

/* Trap handlers count themselves in before they load a published
 * pointer, so once a pointer is swapped and the count has been zero, no
 * handler still holds the old value. */
static void wait_for_handlers(void)
{
	while (__atomic_load_n(&handlers_busy, __ATOMIC_SEQ_CST))
		sched_yield();
}

/* Called with the tables' lock held whenever the set of areas changes. */
int mv_poke_known(const uintptr_t *sorted, size_t n)
{
	struct known *k = malloc(sizeof *k + n * sizeof *k->addr), *old;

	if (!k)
		return mv_error(-ENOMEM, "out of memory building the trap tables");
	k->n = n;
	memcpy(k->addr, sorted, n * sizeof *sorted);
	old = __atomic_exchange_n(&known, k, __ATOMIC_SEQ_CST);
	wait_for_handlers();
	free(old);
	return 0;
}

static int is_known(uintptr_t at)
{
	const struct known *k = __atomic_load_n(&known, __ATOMIC_SEQ_CST);
	size_t lo = 0, hi = k ? k->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->addr[mid] == at)
			return 1;
		if (k->addr[mid] < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static const struct trap_area *find_trap_area(const struct trap_batch *b,
					      uintptr_t at)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->a[mid].addr == at)
			return &b->a[mid];
		if (b->a[mid].addr < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Async-signal-safe: no locks, no allocation.  cpu->ip is the address
 * after the breakpoint.  Returns 1 if the trap was ours and cpu is set to
 * resume the thread. */
int mv_poke_trap(struct mv_cpu *cpu)
{
	uintptr_t at = cpu->ip - 1;
	const struct trap_batch *b;
	const struct trap_area *t;
	int ours = 0;

	__atomic_add_fetch(&handlers_busy, 1, __ATOMIC_SEQ_CST);
	b = __atomic_load_n(&published, __ATOMIC_SEQ_CST);
	t = b ? find_trap_area(b, at) : NULL;
	if (!t && (b = __atomic_load_n(&stuck_table, __ATOMIC_SEQ_CST)))
		t = find_trap_area(b, at);
	if (t) {
		struct mv_cpu c = *cpu;
		if (!mv_arch_emulate(t->bytes, t->len, at, &c)) {
			*cpu = c;
			ours = 1;
		}
	} else if (*(const volatile uint8_t *)at != MV_ARCH_BREAKPOINT &&
		   is_known(at)) {
		cpu->ip = at;
		ours = 1;
	}
	__atomic_sub_fetch(&handlers_busy, 1, __ATOMIC_SEQ_CST);
	return ours;
}

/* Whether the text of a holds what the runtime left there: what it last
 * wrote, or for a stuck area what the failed batch left (read back). */
int mv_poke_matches(const struct mv_area *a)
{
	return !memcmp(a->addr, a->stuck ? a->alt : a->cur, a->len);
}

enum step { BREAKPOINTS, TAILS, HEADS, WHOLE };

static uint8_t *page_buf;
static size_t page_size;

/* One write per run of areas starting in the same page. */
static int write_step(enum step step)
{
	for (size_t i = 0, j; i < n_queue; i = j) {
		uintptr_t start = (uintptr_t)queue[i].area->addr;
		uintptr_t page = start & -(uintptr_t)page_size, end = start;

		for (j = i; j < n_queue; j++) {
			uintptr_t a = (uintptr_t)queue[j].area->addr;
			if ((a & -(uintptr_t)page_size) != page)
				break;
			end = a + queue[j].area->len;
		}
		memcpy(page_buf, (const void *)start, end - start);
		for (size_t k = i; k < j; k++) {
			const struct poke *p = &queue[k];
			uint8_t *at = page_buf + ((uintptr_t)p->area->addr - start);

			switch (step) {
			case BREAKPOINTS: at[0] = MV_ARCH_BREAKPOINT; break;
			case TAILS: memcpy(at + 1, p->bytes + 1, p->area->len - 1); break;
			case HEADS: at[0] = p->bytes[0]; break;
			case WHOLE: memcpy(at, p->bytes, p->area->len); break;
			}
		}
		int err = mv_text_write((void *)start, page_buf, end - start);
		if (err)
			return err;
	}
	return 0;
}

static int write_steps(void)
{
	static const enum step steps[] = { BREAKPOINTS, TAILS, HEADS };
	int err = 0;

	for (size_t s = 0; s < 3 && !err; s++) {
		err = write_step(steps[s]);
		if (!err)
			err = mv_cpu_sync();
	}
	return err;
}

/* The queue's areas, emulated as their new bytes (or, old, as what they
 * held before the batch). */
static struct trap_batch *make_trap_batch(int old)
{
	struct trap_batch *b = malloc(sizeof *b + n_queue * sizeof *b->a);

	if (!b)
		return NULL;
	b->n = n_queue;
	for (size_t i = 0; i < n_queue; i++) {
		const struct mv_area *a = queue[i].area;
		b->a[i].addr = (uintptr_t)a->addr;
		b->a[i].len = a->len;
		memcpy(b->a[i].bytes, old ? a->cur : queue[i].bytes, a->len);
	}
	return b;
}

/* Replaces what the handler reads at *slot, once no handler reads the
 * old value any more. */
static void republish(struct trap_batch **slot, struct trap_batch *b)
{
	struct trap_batch *old = __atomic_exchange_n(slot, b, __ATOMIC_SEQ_CST);

	wait_for_handlers();
	free(old);
}

/* Room for the stuck table after this batch, allocated before anything
 * is written so that updating it cannot fail. */
static struct trap_batch *alloc_stuck_table(void)
{
	size_t max = (stuck_table ? stuck_table->n : 0) + n_queue;

	return malloc(sizeof(struct trap_batch) + max * sizeof(struct trap_area));
}

/* Publishes b as the stuck table: the old one without the queue's areas
 * that are no longer stuck, with those that now are (emulated as their
 * cur bytes). */
static void update_stuck_table(struct trap_batch *b)
{
	const struct trap_batch *t = stuck_table;
	size_t n = 0, i = 0, j = 0;

	/* Both lists are sorted by address: merge them. */
	while ((t && i < t->n) || j < n_queue) {
		uintptr_t ta = t && i < t->n ? t->a[i].addr : UINTPTR_MAX;
		uintptr_t qa = j < n_queue ? (uintptr_t)queue[j].area->addr : UINTPTR_MAX;

		if (ta < qa) {
			b->a[n++] = t->a[i++];
			continue;
		}
		if (ta == qa)
			i++;            /* the queue knows better */
		const struct mv_area *a = queue[j++].area;
		if (a->stuck) {
			b->a[n].addr = (uintptr_t)a->addr;
			b->a[n].len = a->len;
			memcpy(b->a[n].bytes, a->cur, a->len);
			n++;
		}
	}
	b->n = n;
	mv_poke_n_stuck = n;
	republish(&stuck_table, b);
}

static uintptr_t addr_of(const struct poke *p)
{
	return (uintptr_t)p->area->addr;
}

/*
 * Sorts the queue by address.  It arrives as a few sorted runs (one per
 * function: its entry, then its sites in address order), so a natural
 * merge sort takes about one pass where qsort() took most of a commit.
 */
static int sort_queue(void)
{
	struct poke *src = queue, *dst, *tmp;
	size_t runs = 1;

	for (size_t i = 1; i < n_queue; i++)
		runs += addr_of(&queue[i]) < addr_of(&queue[i - 1]);
	if (runs == 1)
		return 0;
	dst = malloc(n_queue * sizeof *dst);
	if (!dst)
		return mv_error(-ENOMEM, "out of memory sorting a patch batch");
	tmp = dst;
	while (runs > 1) {
		size_t out = 0, i = 0;

		runs = 0;
		while (i < n_queue) {
			size_t a = i, a_end = i + 1, b, b_end;

			while (a_end < n_queue && addr_of(&src[a_end]) >= addr_of(&src[a_end - 1]))
				a_end++;
			b = b_end = a_end;
			while (b_end < n_queue && (b_end == b ||
			       addr_of(&src[b_end]) >= addr_of(&src[b_end - 1])))
				b_end++;
			while (a < a_end || b < b_end)
				dst[out++] = b == b_end || (a < a_end &&
					     addr_of(&src[a]) <= addr_of(&src[b])) ? src[a++] : src[b++];
			i = b_end;
			runs++;
		}
		tmp = src, src = dst, dst = tmp;
	}
	if (src != queue) {
		memcpy(queue, src, n_queue * sizeof *queue);
		free(src);
	} else {
		free(dst);
	}
	return 0;
}

/* The multi-threaded protocol of the header comment.  On failure, the
 * queue's areas are marked stuck where a breakpoint may remain, and
 * *stuck is used up for the new stuck table. */
static int write_live(struct trap_batch **stuck)
{
	struct trap_batch *b, *old;
	int err;

	err = mv_cpu_sync_ready();
	if (!err)
		err = mv_trap_ready();
	if (err)
		return err;
	b = make_trap_batch(0);
	old = make_trap_batch(1);
	if (!b || !old) {
		free(b);
		free(old);
		return mv_error(-ENOMEM, "out of memory for the trap table; nothing was written");
	}
	__atomic_store_n(&published, b, __ATOMIC_SEQ_CST);

	err = write_steps();
	if (err) {
		char cause[400];
		int rolled_back;

		snprintf(cause, sizeof cause, "%s", multiverse_last_error());
		if (mv_poke_must_forward) {
			/* Unloading: the previous code reaches into a module
			 * about to go, so the batch may only go forward.  Its
			 * breakpoints keep emulating the new bytes; try once
			 * more to finish it. */
			err = write_steps();
			if (!err) {
				mv_report("%s; the patch batch was completed on a "
					  "second try", cause);
				republish(&published, NULL);
				free(old);
				return 0;
			}
			mv_poke_forward = 1;
			rolled_back = 0;
		} else {
			/* Back to what the areas held: emulated first, then
			 * written. */
			republish(&published, old);
			old = NULL;
			for (size_t i = 0; i < n_queue; i++)
				memcpy(queue[i].bytes, queue[i].area->cur, queue[i].area->len);
			rolled_back = !write_steps();
		}
		/*
		 * Not rolled back: each area holds its old instruction, its
		 * new one, or a breakpoint, whose emulation we choose.  Old
		 * and new are never both whole: old ones remain only if the
		 * breakpoint step failed, new ones appear only in the last
		 * step.  So if any area holds its new instruction, the whole
		 * batch goes forward: the breakpoints emulate the new bytes
		 * and the runtime reports the new configuration.  (An area that
		 * held its new bytes before the batch tells nothing.)
		 */
		for (size_t i = 0; i < n_queue && !rolled_back; i++) {
			const struct mv_area *a = queue[i].area;
			const uint8_t *before = a->stuck ? a->alt : a->cur;

			if (!memcmp(a->addr, queue[i].want, a->len) &&
			    memcmp(before, queue[i].want, a->len))
				mv_poke_forward = 1;
		}
		/* We are the only writer: what the text holds now is exact. */
		for (size_t i = 0; i < n_queue; i++) {
			struct mv_area *a = queue[i].area;
			if (mv_poke_forward) {
				memcpy(a->cur, queue[i].want, a->len);
				a->state = queue[i].state;
			}
			a->stuck |= !rolled_back;
			if (a->stuck)
				memcpy(a->alt, a->addr, a->len);
		}
		size_t untouched = 0;
		for (size_t i = 0; i < n_queue && mv_poke_must_forward; i++)
			untouched += queue[i].area->addr[0] != MV_ARCH_BREAKPOINT &&
				     memcmp(queue[i].area->addr, queue[i].want,
					    queue[i].area->len);
		if (untouched) {
			size_t len = strlen(cause);
			snprintf(cause + len, sizeof cause - len, "; %zu areas could "
				 "not be written at all and still reach into the "
				 "module being unloaded: calling through them will "
				 "crash", untouched);
		}
		if (rolled_back) {
			mv_report("%s; the patch batch was rolled back: the "
				  "previous code is in place", cause);
		} else {
			update_stuck_table(*stuck);
			*stuck = NULL;
			mv_report("%s; could not roll the patch batch back: %zu "
				  "areas may keep a breakpoint, which runs their %s "
				  "code; the next patching call rewrites them", cause,
				  n_queue, mv_poke_forward ? "new" : "previous");
		}
	}
	republish(&published, NULL);
	free(old);
	return err;
}

static void drop_queue(void)
{
	for (size_t i = 0; i < n_queue; i++)
		queue[i].area->queued = 0;
	n_queue = 0;
}

void mv_poke_cancel(void)
{
	mv_poke_forward = 0;
	drop_queue();
}

int mv_poke_flush(void)
{
	struct trap_batch *stuck;
	int err;

	if (!n_queue)
		return 0;
	if (!page_buf) {
		page_size = (size_t)sysconf(_SC_PAGESIZE);
		page_buf = malloc(page_size + MV_AREA_MAX);
		if (!page_buf) {
			drop_queue();
			return mv_error(-ENOMEM, "out of memory for patching");
		}
	}
	err = sort_queue();
	if (!err)
		err = mv_text_ready();
	if (err) {
		drop_queue();
		return err;
	}
	mv_poke_forward = 0;
	stuck = alloc_stuck_table();
	if (!stuck)
		err = mv_error(-ENOMEM, "out of memory for patching; nothing was written");
	else if (mv_other_threads())
		err = write_live(&stuck);
	else if ((err = write_step(WHOLE))) {
		char cause[160];

		snprintf(cause, sizeof cause, "%s", multiverse_last_error());
		for (size_t i = 0; i < n_queue; i++)
			memcpy(queue[i].bytes, queue[i].area->cur, queue[i].area->len);
		if (write_step(WHOLE))
			mv_report("%s; could not roll the patch batch back either: "
				  "some areas may hold their new instruction", cause);
		else
			mv_report("%s; the patch batch was rolled back: the "
				  "previous code is in place", cause);
	}
	if (!err) {
		int was_stuck = 0;

		for (size_t i = 0; i < n_queue; i++) {
			struct mv_area *a = queue[i].area;
			memcpy(a->cur, queue[i].want, a->len);
			a->state = queue[i].state;
			was_stuck |= a->stuck;
			a->stuck = 0;
		}
		if (was_stuck) {
			update_stuck_table(stuck);
			stuck = NULL;
		}
	}
	free(stuck);
	drop_queue();
	return err;
}
