/* SPDX-License-Identifier: MIT */
/* A function-pointer switch whose calls are padded, pointing to plain
 * multiversed functions (MV_FN_PLAIN: marked, no switch read): commit
 * copies the target's own code into each padded call and tail call, a
 * target that cannot be copied (it calls) gets a direct call, the
 * generics' entries are never written, and revert restores the text byte
 * for byte. */
#include "text.h"
#include "check.h"

/* optimized, the plain functions have no frame: copied (at -O0 they
 * may have one: then called) */
#ifdef __OPTIMIZE__
#define COPIED MULTIVERSE_SITE_COPIED
#else
#define COPIED -1
#endif

volatile int flag = 5;

__attribute__((multiverse)) void native_off(void) { flag = 0; }
__attribute__((multiverse)) void native_on(void) { flag = 1; }
__attribute__((noinline)) void logged(void) { flag = 7; __asm__ volatile(""); }
__attribute__((multiverse)) void calls_out(void) { logged(); flag += 1; }

__attribute__((multiverse("inline", 24))) void (*pv_set)(void) = native_off;

__attribute__((noinline)) void set(void) { pv_set(); __asm__ volatile(""); }
__attribute__((noinline)) void tail_set(void) { pv_set(); }

/* every site of pv_set holds `holds` (-1: a copy or a call) */
static void expect(int holds)
{
	const struct mv_info_var *v = multiverse_info_var(&pv_set);
	CHECK(v != NULL);
	if (!v)
		return;
	unsigned calls = 0;
	for (unsigned i = 0; i < v->n_sites; i++) {
		const struct mv_info_site *s = multiverse_info_site(&pv_set, i);
		CHECK(s != NULL);
		if (s && is_clang_stub(s->addr)) {
			CHECK(s->holds == (holds == MULTIVERSE_SITE_ORIGINAL ? holds : MULTIVERSE_SITE_CALL));
			continue;
		}
		calls++;
		int ok = s && (holds >= 0 ? s->holds == holds :
			       s->holds == MULTIVERSE_SITE_COPIED ||
			       s->holds == MULTIVERSE_SITE_CALL);
		if (s && !ok)
			fprintf(stderr, "site %u at %p holds %d, not %d\n", i, s->addr,
				s->holds, holds);
		CHECK(ok);
	}
	CHECK_EQ(calls, 2);
}

/* both sites leave flag as expected */
static void runs(int expected)
{
	flag = 5;
	set();
	CHECK_EQ(flag, expected);
	flag = 5;
	tail_set();
	CHECK_EQ(flag, expected);
}

int main(void)
{
	const struct mv_info_fn *f = multiverse_info_fn(native_off);

	CHECK(f != NULL);
	CHECK_EQ(f ? f->n_variants : 99, 0);
	runs(0);
	expect(MULTIVERSE_SITE_ORIGINAL);

	CHECK_EQ(multiverse_commit(), 1);
	expect(COPIED);
	runs(0);
	f = multiverse_info_fn(native_off);
	CHECK(f && !f->committed);      /* its entry is never written */

	pv_set = native_on;             /* another copy */
	CHECK_EQ(multiverse_commit(), 1);
	expect(COPIED);
	runs(1);
	pv_set = native_off;            /* bound until the next commit */
	runs(1);

	pv_set = calls_out;             /* cannot be copied: a call */
	CHECK_EQ(multiverse_commit(), 1);
	expect(MULTIVERSE_SITE_CALL);
	runs(8);

	pv_set = logged;                /* not multiversed: a call */
	CHECK_EQ(multiverse_commit(), 1);
	expect(MULTIVERSE_SITE_CALL);
	runs(7);

	pv_set = native_on;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_revert(), 1);
	expect(MULTIVERSE_SITE_ORIGINAL);
	pv_set = native_off;
	runs(0);
	CHECK_EQ(text_diffs(), 0);
	CHECK_DONE();
}
