/* SPDX-License-Identifier: MIT */
/* Commit never writes a call site that does not hold the instruction the
 * runtime expects.  Here the program rewrites two sites of f itself, as a
 * debugger or another patcher might: one before the runtime first reads
 * it, one after.  Commit must leave both alone, report them, and
 * still bind the function and its untouched site. */
#define _GNU_SOURCE
#include "check.h"
#include "site_write.h"

__attribute__((multiverse)) int sw;
__attribute__((multiverse)) int f(void) { return sw ? 10 : 20; }
__attribute__((noinline)) int g(void) { __asm__ volatile(""); return 30; }

__attribute__((noinline)) int call_a(void) { return f() + 1; }
__attribute__((noinline)) int call_b(void) { return f() + 2; }
__attribute__((noinline)) int call_c(void) { return f() + 3; }

int main(void)
{
	uint8_t *a = site_in(call_a, f), *b = site_in(call_b, f), *c = site_in(call_c, f);
	CHECK(a && b && c && is_call(a) && is_call(b) && is_call(c));
	if (!a || !b || !c)
		CHECK_DONE();

	write_call(a, g);               /* before the runtime read it */
	CHECK_EQ(multiverse_init(), 0);
	/* asked about them, the runtime has read f's sites (if start-up did
	 * not: it reads only those that may receive a copy) */
	const struct mv_info_fn *fi = multiverse_info_fn(f);
	CHECK(fi && fi->n_sites_skipped == 1);
	write_call(b, g);               /* after: the runtime knew other bytes */
	uint8_t before_a[CALL_LEN], before_b[CALL_LEN];
	memcpy(before_a, a, CALL_LEN);
	memcpy(before_b, b, CALL_LEN);

	sw = 1;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_is_committed(f), 1);
	CHECK(memcmp(a, before_a, CALL_LEN) == 0);
	CHECK(memcmp(b, before_b, CALL_LEN) == 0);
	CHECK(strstr(multiverse_last_error(), "left alone") != NULL);
	fi = multiverse_info_fn(f);
	CHECK(fi && fi->n_sites_skipped == 2);

	sw = 0;                         /* bound: the good site calls the variant */
	CHECK_EQ(call_a(), 31);
	CHECK_EQ(call_b(), 32);
	CHECK_EQ(call_c(), 13);
	CHECK_EQ(OPAQUE(&f)(), 10);

	CHECK_EQ(multiverse_revert(), 1);
	CHECK(memcmp(a, before_a, CALL_LEN) == 0);
	CHECK(memcmp(b, before_b, CALL_LEN) == 0);
	CHECK_EQ(call_c(), 23);
	CHECK_DONE();
}
