/* SPDX-License-Identifier: MIT */
/* multiverse_info_site(): what each call site holds, before commit,
 * after it (a copy of a variant in a padded site, an empty body in the
 * call itself, a direct call) and after revert; and NULL past the last
 * site or for an address that is not multiversed.  A site is padded as
 * ("inline", N) says, or, without it, for the largest variant the unit
 * can copy (none at -O0, where every variant has a frame). */
#include "check.h"

__attribute__((multiverse)) int mode;
long base = 5, count;

/* optimized, variants without a frame: copied and inlined */
#ifdef __OPTIMIZE__
#define OPT 1
#else
#define OPT 0
#endif

__attribute__((multiverse("inline", 32))) long padded(long x);
__attribute__((multiverse)) long padded(long x) { return mode ? x * 3 + base : x - base; }
__attribute__((multiverse)) long sized(long x) { return mode ? x * 7 + base : x * 5 - base; }
__attribute__((multiverse)) void maybe_count(void) { if (mode) count++; }
__attribute__((noinline)) long other(long x) { return x + count; }
__attribute__((multiverse)) long calling(long x) { return mode ? other(x) : other(x + 1); }
static long one(long x) { return x + 1; }
__attribute__((multiverse)) long (*hook)(long) = one;

__attribute__((noinline)) long use(long x)
{
	maybe_count();
	return padded(x) + calling(x) + hook(x) + sized(x);
}

/* holds: one of MULTIVERSE_SITE_*, or -1 for any that binds the site
 * (at -O0 an empty body may be a call, or copied where it fits) */
static void expect(void *fn, int holds)
{
	const struct mv_info_fn *f = multiverse_info_fn(fn);
	const struct mv_info_var *v = multiverse_info_var(fn);
	unsigned n = f ? f->n_sites : v ? v->n_sites : 0;

	CHECK(n >= 1);
	for (unsigned i = 0; i < n; i++) {
		const struct mv_info_site *s = multiverse_info_site(fn, i);
		CHECK(s != NULL);
		if (!s)
			continue;
		CHECK(s->addr != NULL);
		int ok = holds >= 0 ? s->holds == holds :
			 s->holds != MULTIVERSE_SITE_ORIGINAL && s->holds != MULTIVERSE_SITE_SKIPPED;
		if (!ok)
			fprintf(stderr, "site %u of %s at %p holds %d, not %d\n", i,
				f ? f->name : v->name, s->addr, s->holds, holds);
		CHECK(ok);
	}
	CHECK(multiverse_info_site(fn, n) == NULL);
}

int main(void)
{
	CHECK_EQ(use(10), 10 - 5 + 11 + 11 + 50 - 5);
	expect(padded, MULTIVERSE_SITE_ORIGINAL);
	expect(&hook, MULTIVERSE_SITE_ORIGINAL);
	CHECK(multiverse_info_site(padded, 0)->pad > 0);
	CHECK_EQ(multiverse_info_site(calling, 0)->pad, 0);     /* no variant to copy */
	CHECK_EQ(multiverse_info_site(sized, 0)->pad > 0, OPT);

	mode = 0;
	CHECK(multiverse_commit() > 0);
	expect(padded, OPT ? MULTIVERSE_SITE_COPIED : MULTIVERSE_SITE_CALL);
	expect(maybe_count, OPT ? MULTIVERSE_SITE_INLINED : -1);
	expect(calling, MULTIVERSE_SITE_CALL);
	expect(sized, OPT ? MULTIVERSE_SITE_COPIED : MULTIVERSE_SITE_CALL);
	expect(&hook, MULTIVERSE_SITE_CALL);
	CHECK_EQ(use(10), 10 - 5 + 11 + 11 + 50 - 5);

	CHECK(multiverse_revert() > 0);
	expect(padded, MULTIVERSE_SITE_ORIGINAL);
	expect(maybe_count, MULTIVERSE_SITE_ORIGINAL);
	expect(&hook, MULTIVERSE_SITE_ORIGINAL);
	expect(sized, MULTIVERSE_SITE_ORIGINAL);
	CHECK_EQ(use(10), 10 - 5 + 11 + 11 + 50 - 5);

	CHECK(multiverse_info_site(other, 0) == NULL);       /* not multiversed */
	CHECK(multiverse_info_site(&base, 0) == NULL);
	CHECK_DONE();
}
