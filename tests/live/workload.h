/* SPDX-License-Identifier: MIT */
/*
 * The code the live tests patch while worker threads run it: one of each
 * kind of area the runtime rewrites (see docs/patching.md), and the
 * functions they reach:
 *
 *   calc     a real body in every variant: direct call, tail call, call
 *            through a pointer to the generic (its entry jmp), call site
 *            in the worker loop
 *   op       function-pointer switch: call and tail call through memory,
 *            which commit turns into direct calls (to abs() through a
 *            far-call gate)
 *   konst    a 32-bit constant (K_0 or K_1): each site holds a mov imm32
 *            on x86-64, a movz or movn on AArch64
 *   ksmall   64-bit constant 0 or -1: a mov $0,%eax against a CS-prefixed
 *            or $-1,%rax, two different instructions (movz/movn on AArch64)
 *   hook     an empty body (NOP at a call site, ret at a tail call) or a
 *            body that counts the call
 *   mix      padded call sites (multiverse("inline", 24)), on kmode: a
 *            copy of the variant, several instructions with a PC-relative
 *            load, fills the site (runtime/region.c), direct call and
 *            tail call
 *
 * Every configuration gives a result a worker can check without knowing
 * which configuration is active, and the configurations never give the same
 * result.  A worker accepts any configuration's result, never anything
 * else: a mix of the old and the new instruction gives a value no
 * configuration gives, or a wild jump.
 */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include "live.h"

__attribute__((multiverse)) int sel;
__attribute__((multiverse)) int kmode;
__attribute__((multiverse)) _Bool hook_on;
int op_add(int x);
/* Never NULL: workers may call through it at any time. */
__attribute__((multiverse)) int (*op)(int) = op_add;

#define CALC_1(x) ((x) * 3 + 7)
#define CALC_0(x) ((x) * 5 - 11)
/* The constants differ in every byte, and their top bytes are neither 00
 * nor ff, the top byte of a near call's rel32: half the old instruction
 * and half the new one is neither constant nor a call to a function. */
#ifdef __x86_64__       /* every byte of the mov imm32 differs */
#define K_1 0x13579bdf
#define K_0 0x6ae4c208
#else                   /* AArch64: one movz (shifted) and one movn */
#define K_1 0x13570000
#define K_0 ((int)~0x6ae4)
#endif

__attribute__((multiverse)) int calc(int x) { return sel ? CALC_1(x) : CALC_0(x); }
__attribute__((multiverse)) int konst(void) { return kmode ? K_1 : K_0; }
__attribute__((multiverse)) long ksmall(void) { return kmode ? -1 : 0; }
__attribute__((multiverse)) void hook(unsigned long *hits) { if (hook_on) ++*hits; }

long mix_base = 0x3c5a1;        /* read PC-relative by both variants */
#define MIX_1(x) ((x) * 9 + 0x3c5a1)
#define MIX_0(x) (((x) ^ 0x3c5a1) - 3)
__attribute__((multiverse("inline", 24))) long mix(long x);
__attribute__((multiverse)) long mix(long x) { return kmode ? x * 9 + mix_base : (x ^ mix_base) - 3; }

/* The targets of op; calc is one too, so a committed op site calls a
 * multiversed generic whose entry is patched as well, and the C library's
 * abs(), which in a PIE lies beyond a direct call's reach, so a committed
 * site branches to a far-call gate. */
__attribute__((noipa)) int op_add(int x) { return x + 1000; }
__attribute__((noipa)) int op_xor(int x) { return x ^ 0x5a5a; }
static int (*const op_targets[])(int) = { op_add, op_xor, calc, abs };

/* Each wrapper holds one site of its kind.  noipa keeps every wrapper a
 * separate function that is neither inlined nor merged with another, and
 * the arithmetic after a call keeps it from becoming a tail call. */
__attribute__((noipa)) int call_calc(int x) { return calc(x) + 1; }
__attribute__((noipa)) int tail_calc(int x) { return calc(x); }
__attribute__((noipa)) int call_op(int x) { return op(x) - 1; }
__attribute__((noipa)) int tail_op(int x) { return op(x); }
__attribute__((noipa)) int call_konst(void) { return konst() ^ 1; }
__attribute__((noipa)) int tail_konst(void) { return konst(); }
__attribute__((noipa)) long call_ksmall(void) { return ksmall() + 2; }
__attribute__((noipa)) long tail_ksmall(void) { return ksmall(); }
__attribute__((noipa)) void call_hook(unsigned long *h) { hook(h); __asm__ volatile(""); }
__attribute__((noipa)) void tail_hook(unsigned long *h) { hook(h); }
__attribute__((noipa)) long call_mix(long x) { return mix(x) + 1; }
__attribute__((noipa)) long tail_mix(long x) { return mix(x); }

/*
 * The same sites again, each placed across a cache-line boundary (two,
 * x_call_calc and x_tail_op, across a page boundary: STRADDLE_PAGE): the
 * asm pads to 'at' bytes past a 64-byte boundary, so the call or jmp that
 * follows starts there and ends in the next line.  A write of such a site
 * is not atomic for another processor fetching it, whatever the copying
 * code does, so this is where an unsynchronized write is most often
 * caught half done.  Offsets 60..63 put 1 to 4 bytes in the first line.
 * The filler is jumped over, not executed.
 */
#if defined(__x86_64__)
#define STRADDLE_ALIGNED(align, at) \
	__asm__ volatile("jmp 1f\n\t.p2align " #align ", 0xcc\n\t.skip " #at ", 0xcc\n1:" ::: "memory")
#else   /* AArch64: every instruction is one aligned word */
#define STRADDLE_ALIGNED(align, at) __asm__ volatile("" ::: "memory")
#endif
#define STRADDLE(at) STRADDLE_ALIGNED(6, at)
/* The same across a page boundary: the write steps take the text a page
 * at a time, and such a site is the one that reaches into the next page. */
#define STRADDLE_PAGE(at) STRADDLE_ALIGNED(12, at)
__attribute__((noipa)) int x_call_calc(int x) { STRADDLE_PAGE(4094); return calc(x) + 1; }
__attribute__((noipa)) int x_tail_calc(int x) { STRADDLE(62); return calc(x); }
__attribute__((noipa)) int x_call_op(int x) { STRADDLE(63); return op(x) - 1; }
__attribute__((noipa)) int x_tail_op(int x) { STRADDLE_PAGE(4093); return op(x); }
__attribute__((noipa)) int x_call_konst(void) { STRADDLE(62); return konst() ^ 1; }
__attribute__((noipa)) long x_call_ksmall(void) { STRADDLE(61); return ksmall() + 2; }
__attribute__((noipa)) void x_call_hook(unsigned long *h) { STRADDLE(63); hook(h); __asm__ volatile(""); }
__attribute__((noipa)) void x_tail_hook(unsigned long *h) { STRADDLE(60); hook(h); }

/* Whether the straddling wrapper fn really has its site at 'at' past a
 * boundary of 'align' bytes: follows the jmp over the filler (the first
 * eb or e9 in the first bytes, after at most a stack adjustment). */
static inline int straddles_aligned(void *fn, uintptr_t align, unsigned at)
{
	const unsigned char *p = fn;

	for (int i = 0; i < 8; i++) {
		const unsigned char *to;

		if (p[i] == 0xeb)
			to = p + i + 2 + (signed char)p[i + 1];
		else if (p[i] == 0xe9)
			to = p + i + 5 + (int32_t)(p[i + 1] | p[i + 2] << 8 | p[i + 3] << 16 |
						   (uint32_t)p[i + 4] << 24);
		else
			continue;
		return ((uintptr_t)to & (align - 1)) == at;
	}
	return 0;
}

static inline int straddles(void *fn, unsigned at)
{
	return straddles_aligned(fn, 64, at);
}

static inline int calc_ok(int x, int r) { return r == CALC_1(x) || r == CALC_0(x); }
static inline int op_ok(int x, int r)
{
	return r == x + 1000 || r == (x ^ 0x5a5a) || calc_ok(x, r) || r == abs(x);
}
/* op's argument: negative, so that abs() never returns it unchanged,
 * as a call a worker skipped would. */
static inline int op_arg(int x)
{
	return -1 - x;
}
static inline int konst_ok(int r) { return r == K_1 || r == K_0; }
static inline int mix_ok(long x, long r) { return r == MIX_1(x) || r == MIX_0(x); }
static inline int ksmall_ok(long r) { return r == 0 || r == -1; }

/* --- worker threads ------------------------------------------------------ */

static atomic_int workload_stop;    /* set to end the workers (or on failure) */
static atomic_int workload_started;

struct worker {
	pthread_t tid;
	unsigned seed;
	unsigned long rounds;        /* loops completed, for the progress check */
};

#define WCHECK(ok, what, x, r) do { \
	if (__builtin_expect(!(ok), 0)) { \
		LIVE_FAIL("worker: %s with argument %d returned %lld (%#llx), " \
			  "which no configuration gives", what, x, \
			  (long long)(r), (unsigned long long)(r)); \
		atomic_store(&workload_stop, 1); \
	} \
} while (0)

/* One call of hook must count 0 (empty body) or 1. */
#define HOOK_CHECK(what, call) do { \
	unsigned long before_ = hits; \
	call; \
	WCHECK(hits - before_ <= 1, what, 0, (int)(hits - before_)); \
} while (0)

/* Calls every site in a tight loop and checks every result. */
static void *workload_worker(void *arg)
{
	struct worker *w = arg;
	unsigned s = w->seed;
	unsigned long rounds = 0, hits = 0;
	/* Calls through these reach the generics' entries. */
	int (*p_calc)(int) = OPAQUE(&calc);
	int (*p_konst)(void) = OPAQUE(&konst);
	long (*p_ksmall)(void) = OPAQUE(&ksmall);
	void (*p_hook)(unsigned long *) = OPAQUE(&hook);

	atomic_fetch_add(&workload_started, 1);
	while (!atomic_load_explicit(&workload_stop, memory_order_relaxed)) {
		int x = live_rand(&s) & 0xffff, y = op_arg(x), r;
		long l;

		r = call_calc(x) - 1;   WCHECK(calc_ok(x, r), "call_calc", x, r);
		r = tail_calc(x);       WCHECK(calc_ok(x, r), "tail_calc", x, r);
		r = p_calc(x);          WCHECK(calc_ok(x, r), "calc via pointer", x, r);
		r = calc(x);            WCHECK(calc_ok(x, r), "calc", x, r);
		r = call_op(y) + 1;     WCHECK(op_ok(y, r), "call_op", y, r);
		r = tail_op(y);         WCHECK(op_ok(y, r), "tail_op", y, r);
		r = op(y);              WCHECK(op_ok(y, r), "op", y, r);
		r = call_konst() ^ 1;   WCHECK(konst_ok(r), "call_konst", 0, r);
		r = tail_konst();       WCHECK(konst_ok(r), "tail_konst", 0, r);
		r = p_konst();          WCHECK(konst_ok(r), "konst via pointer", 0, r);
		r = konst();            WCHECK(konst_ok(r), "konst", 0, r);
		l = call_ksmall() - 2;  WCHECK(ksmall_ok(l), "call_ksmall", 0, l);
		l = tail_ksmall();      WCHECK(ksmall_ok(l), "tail_ksmall", 0, l);
		l = p_ksmall();         WCHECK(ksmall_ok(l), "ksmall via pointer", 0, l);
		l = ksmall();           WCHECK(ksmall_ok(l), "ksmall", 0, l);
		l = call_mix(x) - 1;    WCHECK(mix_ok(x, l), "call_mix", x, l);
		l = tail_mix(x);        WCHECK(mix_ok(x, l), "tail_mix", x, l);
		r = x_call_calc(x) - 1; WCHECK(calc_ok(x, r), "x_call_calc", x, r);
		r = x_tail_calc(x);     WCHECK(calc_ok(x, r), "x_tail_calc", x, r);
		r = x_call_op(y) + 1;   WCHECK(op_ok(y, r), "x_call_op", y, r);
		r = x_tail_op(y);       WCHECK(op_ok(y, r), "x_tail_op", y, r);
		r = x_call_konst() ^ 1; WCHECK(konst_ok(r), "x_call_konst", 0, r);
		l = x_call_ksmall() - 2; WCHECK(ksmall_ok(l), "x_call_ksmall", 0, l);
		HOOK_CHECK("x_call_hook", x_call_hook(&hits));
		HOOK_CHECK("x_tail_hook", x_tail_hook(&hits));
		HOOK_CHECK("call_hook", call_hook(&hits));
		HOOK_CHECK("tail_hook", tail_hook(&hits));
		HOOK_CHECK("hook via pointer", p_hook(&hits));
		HOOK_CHECK("hook", hook(&hits));
		rounds++;
	}
	w->rounds = rounds;
	return NULL;
}

/* Starts n workers and returns once all of them run. */
static inline void workload_start(struct worker *w, int n)
{
	atomic_store(&workload_stop, 0);
	atomic_store(&workload_started, 0);
	for (int i = 0; i < n; i++) {
		w[i].seed = 0x9e3779b9u * (i + 1);
		w[i].rounds = 0;
		if (pthread_create(&w[i].tid, NULL, workload_worker, &w[i])) {
			fprintf(stderr, "pthread_create failed\n");
			exit(1);
		}
	}
	while (atomic_load(&workload_started) < n)
		sched_yield();
}

/* Stops and joins the workers; each must have done min_rounds loops. */
static inline void workload_join(struct worker *w, int n, unsigned long min_rounds)
{
	atomic_store(&workload_stop, 1);
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].tid, NULL);
		if (w[i].rounds < min_rounds)
			LIVE_FAIL("worker %d did only %lu loops (want %lu): no progress",
				  i, w[i].rounds, min_rounds);
	}
}

/* --- the committing side --------------------------------------------------- */

/* Changes one switch.  Only one thread calls this, so a plain read is
 * enough; the store is atomic because the generics read the switches. */
static inline void workload_flip(unsigned *s)
{
	unsigned r = live_rand(s);

	switch (r % 4) {
	case 0: __atomic_store_n(&sel, !sel, __ATOMIC_RELAXED); break;
	case 1: __atomic_store_n(&kmode, !kmode, __ATOMIC_RELAXED); break;
	case 2: __atomic_store_n(&hook_on, !hook_on, __ATOMIC_RELAXED); break;
	case 3: __atomic_store_n(&op, op_targets[(r >> 8) % (sizeof op_targets / sizeof *op_targets)], __ATOMIC_RELAXED); break;
	}
}

/* One random patching call of the API; mostly commits, so that the code is
 * usually bound and the sites move between variants, not only between the
 * original and one variant.  Returns the call's result, names it in *what. */
static inline int workload_api(unsigned *s, const char **what)
{
	void *const vars[] = { &sel, &kmode, &hook_on, &op };
	void *const fns[] = { (void *)calc, (void *)konst, (void *)ksmall, (void *)hook, &op,
			      (void *)mix };
	unsigned r = live_rand(s), v = (r >> 8) % 4, f = (r >> 8) % 6;

	switch (r % 8) {
	case 0: case 1: case 2:
		*what = "multiverse_commit";
		return multiverse_commit();
	case 3:
		*what = "multiverse_revert";
		return multiverse_revert();
	case 4:
		*what = "multiverse_commit_refs";
		return multiverse_commit_refs(vars[v]);
	case 5:
		*what = "multiverse_revert_refs";
		return multiverse_revert_refs(vars[v]);
	case 6:
		*what = "multiverse_commit_fn";
		return multiverse_commit_fn(fns[f]);
	default:
		*what = "multiverse_revert_fn";
		return multiverse_revert_fn(fns[f]);
	}
}

/* One step of a committer thread: sometimes new switch values, then one
 * API call.  Returns the call's result; a failed call is reported and
 * returns a negative value.  *what names the call. */
static inline int workload_step(unsigned *s, const char **what)
{
	int r;

	if (live_rand(s) & 1)
		workload_flip(s);
	r = workload_api(s, what);
	if (r < 0)
		LIVE_FAIL("%s returned %d: %s", *what, r, multiverse_last_error());
	return r;
}

/* Random API calls for at least the given time and until at least
 * min_calls were made, but for no longer than max_seconds (an emulated
 * machine is slow), or until one fails or a worker saw a wrong result;
 * returns how many were made. */
static inline unsigned long workload_churn_until(double seconds, unsigned long min_calls,
						 double max_seconds, unsigned *s)
{
	unsigned long calls = 0;
	double t0 = live_now(), t;
	const char *what;

	while (((t = live_now() - t0) < seconds || calls < min_calls) &&
	       t < max_seconds && !atomic_load(&workload_stop)) {
		if (workload_step(s, &what) < 0)
			break;
		calls++;
	}
	return calls;
}

/* Random API calls for the given time (see workload_churn_until). */
static inline unsigned long workload_churn(double seconds, unsigned *s)
{
	return workload_churn_until(seconds, 0, seconds, s);
}

/* Every path gives exactly the results of one configuration (used while
 * that configuration is committed, or on the generics with the switches
 * holding it). */
static inline void workload_expect(int c_sel, int c_kmode, int c_hook, int (*c_op)(int))
{
	unsigned long hits = 0;

	for (int x = 0; x < 3; x++) {
		int want = c_sel ? CALC_1(x) : CALC_0(x), y = op_arg(x);
		int want_op = c_op == calc ? (c_sel ? CALC_1(y) : CALC_0(y)) :
			      c_op == op_add ? y + 1000 : c_op == abs ? abs(y) : y ^ 0x5a5a;

		LIVE_CHECK_EQ(call_calc(x) - 1, want);
		LIVE_CHECK_EQ(tail_calc(x), want);
		LIVE_CHECK_EQ(OPAQUE(&calc)(x), want);
		LIVE_CHECK_EQ(call_op(y) + 1, want_op);
		LIVE_CHECK_EQ(tail_op(y), want_op);
		LIVE_CHECK_EQ(call_mix(x) - 1, c_kmode ? MIX_1(x) : MIX_0(x));
		LIVE_CHECK_EQ(tail_mix(x), c_kmode ? MIX_1(x) : MIX_0(x));
	}
	LIVE_CHECK_EQ(call_konst() ^ 1, c_kmode ? K_1 : K_0);
	LIVE_CHECK_EQ(tail_konst(), c_kmode ? K_1 : K_0);
	LIVE_CHECK_EQ(OPAQUE(&konst)(), c_kmode ? K_1 : K_0);
	LIVE_CHECK_EQ(call_ksmall() - 2, c_kmode ? -1 : 0);
	LIVE_CHECK_EQ(tail_ksmall(), c_kmode ? -1 : 0);
	LIVE_CHECK_EQ(OPAQUE(&ksmall)(), c_kmode ? -1 : 0);
	call_hook(&hits);
	tail_hook(&hits);
	OPAQUE(&hook)(&hits);
	LIVE_CHECK_EQ(hits, c_hook ? 3 : 0);
}

/* After a revert: nothing committed, no site given up, text as on disk. */
static inline void workload_check_pristine(void)
{
	void *const fns[] = { (void *)calc, (void *)konst, (void *)ksmall, (void *)hook,
			      (void *)mix };

	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		const struct mv_info_fn *fi = multiverse_info_fn(fns[i]);

		LIVE_CHECK_EQ(multiverse_is_committed(fns[i]), 0);
		LIVE_CHECK(fi != NULL);
		if (fi)
			LIVE_CHECK_EQ(fi->n_sites_skipped, 0);
	}
	LIVE_CHECK_EQ(multiverse_is_committed(&op), 0);
	LIVE_CHECK_EQ(text_diffs(), 0);
}

#endif
