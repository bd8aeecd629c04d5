/* SPDX-License-Identifier: MIT */
/* The caller side of the redirect benchmark (see redirect.h).  The loop
 * calls the function at one call site; setup performs the update and
 * checks that it took effect. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "redirect.h"

#if defined(FAR) && !defined(DIRECT)
#include <dlfcn.h>
#endif
#ifdef REDIRECTED
#include <multiverse.h>
#include "../../tests/e2e/text.h"      /* decoding sites and gates */
#endif

#if defined(DIRECT)
#define CALL(x) N(new)(x)
#elif defined(TABLE)
#define CALL(x) N(table)[HANDLE](x)
#else
#define CALL(x) N(old)(x)
#endif

DEFINE_WARM(call, CALL(i))
DEFINE_COLD(call, CALL(i))

#define FAIL(...) (fprintf(stderr, BENCH_STR(K) " setup: " __VA_ARGS__), 1)

#ifdef REDIRECTED
/* Every recorded site of OLD calls new_fn: directly (near), or through a
 * far-call gate (FAR), nothing else.  Returns 0, or 1 having said why. */
static int check_sites(void *new_fn)
{
	const struct mv_info_fn *f = multiverse_info_fn((void *)N(old));

	if (!f || f->redirect != new_fn)
		return FAIL("multiverse_info_fn(old)->redirect is %p, not %p\n",
			    f ? f->redirect : NULL, new_fn);
	/* the warm loop's, the cold loop's and setup's own */
	if (f->n_sites < 3)
		return FAIL("%u call sites recorded, expected at least 3\n", f->n_sites);
	for (unsigned i = 0; i < f->n_sites; i++) {
		const struct mv_info_site *s = multiverse_info_site((void *)N(old), i);
		uintptr_t to = s ? text_branch_target(s->addr) : 0;
#ifdef FAR
		uintptr_t want = text_through_gate(to) != to ? text_through_gate(to) : 0;
#else
		uintptr_t want = to;
#endif
		if (!s || s->holds != MULTIVERSE_SITE_CALL || want != (uintptr_t)new_fn)
			return FAIL("site %u (%p) holds %d, branches to %#lx, %s %p\n", i,
				    s ? s->addr : NULL, s ? s->holds : -1, (unsigned long)to,
#ifdef FAR
				    "which is no far-call gate to", new_fn);
#else
				    "not directly to", new_fn);
#endif
	}
	return 0;
}
#endif

int N(setup)(void)
{
	long (*new_fn)(long);

#if defined(FAR) && !defined(DIRECT)
	void *h = redirect_module();
	if (!h)
		return FAIL("cannot load the far module: %s\n", dlerror());
	new_fn = (long (*)(long))dlsym(h, BENCH_STR(N(new)));
	if (!new_fn)
		return FAIL("%s\n", dlerror());
#else
	new_fn = N(new);
#endif
	(void)new_fn;   /* DIRECT calls it by name */

#if !defined(DIRECT)
	/* before the update: OLD runs */
	if (CALL(1) != OLD_RESULT(1))
		return FAIL("before the update, the call returned %ld, not OLD's %ld\n",
			    CALL(1), OLD_RESULT(1));
#endif
#if defined(TABLE)
	N(table)[HANDLE] = new_fn;
#elif defined(REDIRECTED)
	int r = multiverse_redirect((void *)N(old), (void *)new_fn);
	if (r < 0)
		return FAIL("multiverse_redirect: %d: %s\n", r, multiverse_last_error());
	if (check_sites((void *)new_fn))
		return 1;
#endif
	/* after it: NEW runs */
	if (CALL(1) != NEW_RESULT(1))
		return FAIL("the call returned %ld, not NEW's %ld\n", CALL(1), NEW_RESULT(1));
	return 0;
}
