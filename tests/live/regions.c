/* SPDX-License-Identifier: MIT */
/*
 * Variants copied into padded call sites (runtime/region.c) while worker
 * threads run them: direct calls and tail calls of bodies of several
 * instructions, with %rip-relative (or adrp) references, a loop and
 * stores, committed and reverted thousands of times.  Every call's result
 * must be one a configuration gives, and every call must take effect
 * exactly once (a body run twice, or skipped, shows in a counter).  The
 * workers also take a signal whose handler runs the same sites, so that
 * stops meet threads inside handlers.  At the end, the text must be what
 * it was before the first commit, byte for byte.
 *
 * Meanwhile a padded site bound by a call (far's variants call out)
 * changes its call alone, live, behind the jump over its padding; and a
 * padded call through a function-pointer switch receives a copy of the
 * plain multiversed function the switch points to, a different one from
 * commit to commit, under the same protocol.
 */
#include "live.h"
#include "clang_stub.h"

/* Every site of f holds a copy of its variant (each plugin describes
 * which variants may be copied: gcc/inline.cc, clang/inline.cpp). */
#define ALL_COPIED(f) (multiverse_info_fn(f)->n_sites >= 2 && \
		       multiverse_info_fn(f)->n_sites_inlined == multiverse_info_fn(f)->n_sites)

__attribute__((multiverse)) int mode;

long table[4] = { 11, 22, 33, 44 };   /* not static: no compiler may fold it */
long spare = 0x5a5a;
long hits1, hits2;

/* sites large enough for every variant below (a loop may be aligned
 * inside, by up to 15 bytes more, depending on where the variant is) */
__attribute__((multiverse("inline", 64))) long work(long x);
__attribute__((multiverse("inline", 40))) void bump(long *p);

__attribute__((multiverse)) long work(long x)
{
	long s = 0;

	if (mode == 0)
		return x * 3 + 7;
	/* (a loop that runs at least once: with a way around it, Clang
	 * gives each way a return of its own, and the variant is called) */
	if (mode == 1) {
#ifdef __clang__        /* unrolled, the same */
#pragma clang loop unroll(disable)
#endif
		for (long i = 0; i <= (x & 3); i++)
			s += table[i];
		return s + x;
	}
	return x ^ spare;
}

__attribute__((multiverse)) void bump(long *p)
{
	++*p;
	if (mode == 1)
		hits1++;
	else if (mode == 2)
		hits2 += 2;
}

/* called, never copied: the padding is jumped over */
__attribute__((noinline)) long far_helper(long x) { __asm__ volatile(""); return x + 5; }
__attribute__((multiverse("inline", 48))) long far(long x);
__attribute__((multiverse)) long far(long x)
{
	return mode == 1 ? far_helper(x) * 2 : far_helper(x) - 1;
}

/* plain targets of a padded switch: copied */
__attribute__((multiverse)) long plain_a(long x) { return x + table[1]; }
__attribute__((multiverse)) long plain_b(long x) { return x ^ spare; }
__attribute__((multiverse("inline", 24))) long (*pv)(long) = plain_a;

static int far_ok(long x, long r) { return r == (x + 5) * 2 || r == x + 4; }
static int pv_ok(long x, long r) { return r == x + 22 || r == (x ^ 0x5a5a); }

/* Every site of fn (a function or a switch) holds what holds says. */
static int all_hold(void *fn, int holds)
{
	const struct mv_info_fn *f = multiverse_info_fn(fn);
	const struct mv_info_var *v = f ? 0 : multiverse_info_var(fn);
	unsigned n = f ? f->n_sites : v ? v->n_sites : 0;

	for (unsigned i = 0; i < n; i++)
		if (multiverse_info_site(fn, i)->holds != holds &&
		    !is_clang_stub(multiverse_info_site(fn, i)->addr))
			return 0;
	return n >= 2;
}

static int work_ok(long x, long r)
{
	long s = 0;

	for (long i = 0; i <= (x & 3); i++)
		s += table[i];
	return r == x * 3 + 7 || r == s + x || r == (x ^ 0x5a5a);
}

LIVE_CALLER long call_work(long x) { return work(x) + 1; }
LIVE_CALLER long tail_work(long x) { return work(x); }
LIVE_CALLER void call_bump(long *p) { bump(p); __asm__ volatile(""); }
LIVE_CALLER void tail_bump(long *p) { bump(p); }
LIVE_CALLER long call_far(long x) { return far(x) + 1; }
LIVE_CALLER long tail_far(long x) { return far(x); }
LIVE_CALLER long call_pv(long x) { return pv(x) + 1; }
LIVE_CALLER long tail_pv(long x) { return pv(x); }

static atomic_int stop;
static atomic_long calls;

/* One round of every site, checked. */
static void round_of(unsigned *seed, long *mine)
{
	long x = live_rand(seed) & 0xffff, before = *mine, r;

	r = call_work(x) - 1;
	if (!work_ok(x, r))
		LIVE_FAIL("call_work(%ld) returned %ld, which no variant gives", x, r);
	r = tail_work(x);
	if (!work_ok(x, r))
		LIVE_FAIL("tail_work(%ld) returned %ld, which no variant gives", x, r);
	r = call_far(x) - 1;
	if (!far_ok(x, r))
		LIVE_FAIL("call_far(%ld) returned %ld, which no variant gives", x, r);
	r = tail_far(x);
	if (!far_ok(x, r))
		LIVE_FAIL("tail_far(%ld) returned %ld, which no variant gives", x, r);
	r = call_pv(x) - 1;
	if (!pv_ok(x, r))
		LIVE_FAIL("call_pv(%ld) returned %ld, which no target gives", x, r);
	r = tail_pv(x);
	if (!pv_ok(x, r))
		LIVE_FAIL("tail_pv(%ld) returned %ld, which no target gives", x, r);
	call_bump(mine);
	tail_bump(mine);
	if (*mine != before + 2)
		LIVE_FAIL("two bumps counted %ld", *mine - before);
}

static __thread long in_handler_count;
static __thread unsigned handler_seed = 7;

static void on_usr1(int sig)
{
	(void)sig;
	round_of(&handler_seed, &in_handler_count);
}

struct worker {
	pthread_t tid;
	unsigned seed;
	long count;
};

static void *worker(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		round_of(&w->seed, &w->count);
		atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
	}
	return NULL;
}

int main(void)
{
	enum { WORKERS = 3 };
	struct worker w[WORKERS];
	double seconds = live_env("MV_LIVE_SECONDS", 1.0), end;
	long commits = 0, reverts = 0, inlined_seen = 0;
	struct sigaction sa;

	live_guard((unsigned)seconds + LIVE_HANG_SECONDS);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	LIVE_CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);

	/* alone first: the copies are written without stopping anyone */
	mode = 1;
	LIVE_CHECK_EQ(multiverse_commit(), 4);
	LIVE_CHECK(ALL_COPIED(work));
	LIVE_CHECK(ALL_COPIED(bump));
	LIVE_CHECK(all_hold(far, MULTIVERSE_SITE_CALL));
	LIVE_CHECK(all_hold(&pv, MULTIVERSE_SITE_COPIED));

	for (int i = 0; i < WORKERS; i++) {
		w[i].seed = 1234 + i;
		w[i].count = 0;
		LIVE_CHECK(pthread_create(&w[i].tid, NULL, worker, &w[i]) == 0);
	}
	/* at least 200 calls, however slow the machine (each stops the
	 * workers), and for the time asked (longer: MV_LIVE_SECONDS) */
	end = live_now() + seconds;
	for (long i = 0; (i < 200 || live_now() < end) && !live_failures; i++) {
		int r;

		mode = (int)(i % 3);
		__atomic_store_n(&pv, i % 2 ? plain_b : plain_a, __ATOMIC_RELAXED);
		if (i % 5 == 4) {
			r = multiverse_revert();
			reverts++;
		} else {
			r = multiverse_commit();
			commits++;
			inlined_seen += ALL_COPIED(work);
		}
		if (r < 0)
			LIVE_FAIL("commit or revert %ld failed: %s", i, multiverse_last_error());
		if (i % 3 == 0)
			pthread_kill(w[i % WORKERS].tid, SIGUSR1);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < WORKERS; i++)
		LIVE_CHECK(pthread_join(w[i].tid, NULL) == 0);
	LIVE_CHECK(multiverse_revert() >= 0);
	LIVE_CHECK_EQ(text_diffs(), 0);
	LIVE_CHECK(commits + reverts >= 200);
	LIVE_CHECK(inlined_seen >= commits / 2);
	printf("%ld commits (%ld with the copies in), %ld reverts, %ld rounds\n",
	       commits, inlined_seen, reverts, atomic_load(&calls));
	return live_done("regions");
}
