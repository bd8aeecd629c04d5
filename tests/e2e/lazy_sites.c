/* SPDX-License-Identifier: MIT */
/* What the runtime reads, and when.  Start-up (multiverse_init) reads no
 * call site: a site is read when its function is first committed, or
 * when its state is asked about, so a site changed behind the runtime's
 * back is reported then, and only for that function.  The exception are
 * sites that may receive a copy of a variant (here: k's, whose variants
 * fit the call itself): they are read at start-up, when the memory for
 * the copies is taken.  A variant with nothing to copy (e's empty one,
 * which the call itself holds as a NOP) is no such exception.  And the program's own records outlive its
 * unregistering at exit: a destructor that runs after the runtime's
 * still finds its functions committed, and can revert them. */
#define _GNU_SOURCE
#include "check.h"
#include "site_write.h"

__attribute__((multiverse)) int sw;
__attribute__((noinline)) int id(int x) { __asm__ volatile(""); return x; }
/* variants that call: never copied into a site */
__attribute__((multiverse)) int f(void) { return sw ? id(10) : id(20); }
__attribute__((multiverse)) int h(void) { return sw ? id(40) : id(50); }
/* variants of one instruction and a return: they fit the call */
__attribute__((multiverse)) int k(void) { return sw ? 60 : 70; }
/* an empty variant (sw == 0) and one that calls: nothing to copy */
__attribute__((multiverse)) void e(void) { if (sw) id(80); }
__attribute__((noinline)) int other(void) { __asm__ volatile(""); return 30; }

__attribute__((noinline)) int call_f(void) { return f() + 1; }
__attribute__((noinline)) int call_h(void) { return h() + 2; }
__attribute__((noinline)) int call_k(void) { return k() + 3; }
__attribute__((noinline)) int call_e(void) { e(); return 4; }

static int reported(const void *site)
{
	char at[32];

	snprintf(at, sizeof at, "site %p ", site);
	return strstr(multiverse_last_error(), "left alone") &&
	       strstr(multiverse_last_error(), at);
}

int main(void)
{
	uint8_t *hs = site_in(call_h, h), *ks = site_in(call_k, k), *es = site_in(call_e, e);
	CHECK(hs && ks && es && site_in(call_f, f));
	if (!hs || !ks || !es)
		CHECK_DONE();

	write_call(ks, other);
	write_call(es, other);
	CHECK_EQ(multiverse_init(), 0);
#ifdef __OPTIMIZE__                     /* -O0's variants do not fit a call */
	CHECK(reported(ks));            /* read at start-up: it may get a copy */
#endif
	CHECK(!reported(es));
	/* e's site was not read at start-up: committing e reads it, and
	 * reports it then (a site is reported when it is first read) */
	CHECK_EQ(multiverse_commit_fn(e), 1);
	CHECK(reported(es));
	CHECK_EQ(call_e(), 4);
	write_call(hs, other);
	sw = 1;
	CHECK_EQ(multiverse_commit_fn(f), 1);
	CHECK(!reported(hs));           /* start-up did not read h's site, nor
					   did committing another function */
	CHECK_EQ(call_f(), 11);

	/* asked about, h's sites are read: the changed one is found */
	const struct mv_info_fn *hi = multiverse_info_fn(h);
	CHECK(hi && hi->n_sites == 1 && hi->n_sites_skipped == 1);
	CHECK(reported(hs));
	CHECK_EQ(multiverse_commit_fn(h), 1);
	CHECK_EQ(call_h(), 32);         /* left alone: it still calls other() */
	sw = 0;
	CHECK_EQ(OPAQUE(&h)(), 40);     /* the entry is bound */
	CHECK_EQ(call_f(), 11);
	CHECK_EQ(multiverse_commit_fn(k), 1);
	CHECK_EQ(call_k(), 33);         /* left alone */
	CHECK_EQ(OPAQUE(&k)(), 70);
	CHECK_DONE();
}

/* After every default-priority destructor, and after the runtime's
 * unregistering of the program (priority 101): priorities up to 100 are
 * the implementation's, which is what this stands for. */
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
#endif
__attribute__((destructor(100))) static void after_unregistering(void)
{
	if (check_failures)
		return;
	CHECK_EQ(multiverse_is_committed(f), 1);
	CHECK_EQ(call_f(), 11);         /* the variant for sw == 1 */
	CHECK_EQ(multiverse_revert(), 4);
	CHECK_EQ(call_f(), 21);         /* the generic reads sw == 0 */
	if (check_failures) {
		fprintf(stderr, "%d check(s) failed at exit\n", check_failures);
		_exit(1);
	}
}
