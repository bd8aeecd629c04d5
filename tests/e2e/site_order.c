/* SPDX-License-Identifier: MIT */
/* A function's call sites are in address order (multiverse_info_site),
 * though the linker moves some callers ahead of the unit's other code:
 * those in .text.unlikely come before .text (GNU ld's default script),
 * while the unit's descriptors list the sites in the order the compiler
 * emitted them.  The module has enough sites for the runtime to place
 * each by its callee, and it sorts the callee's that are out of order;
 * every site is committed and reverted. */
#include <stdint.h>
#include "check.h"
#include "many_sites.h"

__attribute__((multiverse)) int mode;
__attribute__((multiverse)) int work(int x) { return mode ? x + 1 : x - 1; }

#define COLD __attribute__((noinline, section(".text.unlikely.site_order")))
__attribute__((noinline)) int hot1(int x) { return work(x) + 1; }
COLD int cold1(int x) { return work(x) + 2; }
__attribute__((noinline)) int hot2(int x) { return work(x) + 3; }
COLD int cold2(int x) { return work(x) + 4; }
__attribute__((noinline)) int hot3(int x) { return work(x) + 5; }
COLD int cold3(int x) { return work(x) + 6; }
/* each call takes the last one's result: none can be left out */
__attribute__((noinline)) int many(int x) { REPEAT1024(x = work(x);) return x; }

static int all(int x)
{
	return hot1(x) + cold1(x) + hot2(x) + cold2(x) + hot3(x) + cold3(x);
}

/* committed: each site binds a variant (a call, a copy, inlined) */
static void in_order(int committed)
{
	const struct mv_info_fn *f = multiverse_info_fn(work);
	uintptr_t last = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(f->n_sites >= 6 + 1024);
	for (unsigned i = 0; i < f->n_sites; i++) {
		const struct mv_info_site *s = multiverse_info_site(work, i);

		CHECK(s != NULL);
		if (!s)
			continue;
		if ((uintptr_t)s->addr <= last)
			fprintf(stderr, "site %u at %p is not after %#lx\n", i, s->addr,
				(unsigned long)last);
		CHECK((uintptr_t)s->addr > last);
		if (committed)
			CHECK(s->holds != MULTIVERSE_SITE_ORIGINAL && s->holds != MULTIVERSE_SITE_SKIPPED);
		else
			CHECK_EQ(s->holds, MULTIVERSE_SITE_ORIGINAL);
		last = (uintptr_t)s->addr;
	}
}

int main(void)
{
	/* the premise: the linker put the cold callers first */
	CHECK((uintptr_t)OPAQUE(&cold3) < (uintptr_t)OPAQUE(&hot1));
	CHECK_EQ(all(10), 6 * 9 + 21);
	CHECK_EQ(many(0), -1024);
	in_order(0);

	mode = 1;
	CHECK(multiverse_commit() > 0);
	in_order(1);
	CHECK_EQ(all(10), 6 * 11 + 21);
	CHECK_EQ(many(0), 1024);

	CHECK(multiverse_revert() > 0);
	in_order(0);
	mode = 0;
	CHECK_EQ(all(10), 6 * 9 + 21);
	CHECK_DONE();
}
