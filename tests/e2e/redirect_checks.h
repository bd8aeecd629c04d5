/* SPDX-License-Identifier: MIT */
/*
 * Checks the multiverse_redirect() tests share: where calls go, and what
 * the sites of a redirected function hold.  Include after check.h and
 * text.h.
 */
#ifndef REDIRECT_CHECKS_H
#define REDIRECT_CHECKS_H

/* Each caller k (a site, a tail call, a pointer) given k + 1 returns
 * base + k + 1: it reached the version that adds base. */
static void expect_calls(int line, int (*const callers[3])(int), int base)
{
	for (int k = 0; k < 3; k++) {
		int got = callers[k](k + 1);

		if (got != base + k + 1) {
			fprintf(stderr, "line %d: caller %d got %d, wants %d\n", line, k, got,
				base + k + 1);
			check_failures++;
		}
	}
}

#define VARIANT ((void *)1)

/* Each of fn's sites holds a direct branch to target, through a far-call
 * gate if it needs one; for target NULL, its original call; for VARIANT,
 * a call to a variant or its copy (anything but the original call). */
static void expect_sites(int line, void *fn, void *target)
{
	const struct mv_info_fn *f = multiverse_info_fn(fn);
	unsigned n = f ? f->n_sites : 0;

	if (n < 1) {
		fprintf(stderr, "line %d: no sites\n", line);
		check_failures++;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct mv_info_site *s = multiverse_info_site(fn, i);
		int holds = s ? s->holds : -1;
		uintptr_t to = s ? text_through_gate(text_branch_target(s->addr)) : 0;

		if (target == VARIANT ? holds == MULTIVERSE_SITE_ORIGINAL || holds < 0 :
		    target ? holds != MULTIVERSE_SITE_CALL || to != (uintptr_t)target
			   : holds != MULTIVERSE_SITE_ORIGINAL) {
			fprintf(stderr, "line %d: site %u holds %d, to %#lx, not %p\n", line, i,
				holds, (unsigned long)to, target);
			check_failures++;
		}
	}
}
#define EXPECT_SITES(fn, target) expect_sites(__LINE__, (void *)(fn), (void *)(target))

#endif
