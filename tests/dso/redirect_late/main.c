/* SPDX-License-Identifier: MIT */
/* A module loaded while a function is redirected: its sites of the
 * function are bound to the new function in the batch that binds the
 * module, directly or through far-call gates, not left to reach it
 * through the old entry's jump.  argv[1] is the folder holding
 * plugin.so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"
#include "text.h"

__attribute__((multiverse)) int handle(int x);  /* its calls are sites */

__attribute__((noinline)) int handle_v2(int x) { return 1000 + x; }

/* The sites of handle that lie in the module holding inside. */
static unsigned sites_in(const void *inside, void *want, unsigned *bound)
{
	const struct mv_info_fn *f = multiverse_info_fn((void *)handle);
	Dl_info in, at;
	unsigned n = 0;

	*bound = 0;
	if (!f || !dladdr(inside, &in))
		return 0;
	for (unsigned i = 0; i < f->n_sites; i++) {
		const struct mv_info_site *s = multiverse_info_site((void *)handle, i);

		if (!s || !dladdr(s->addr, &at) || at.dli_fbase != in.dli_fbase)
			continue;
		n++;
		*bound += s->holds == MULTIVERSE_SITE_CALL &&
			  text_through_gate(text_branch_target(s->addr)) == (uintptr_t)want;
	}
	return n;
}

int main(int argc, char **argv)
{
	char path[4096];
	unsigned n, bound;
	void *h;
	int (*call)(int);

	if (argc < 2)
		return 2;
	snprintf(path, sizeof path, "%s/plugin.so", argv[1]);
	CHECK_EQ(multiverse_redirect((void *)handle, (void *)handle_v2), 0);
	h = dlopen(path, RTLD_NOW);
	call = h ? (int (*)(int))dlsym(h, "plugin_call") : NULL;
	CHECK(call != NULL);
	if (!call)
		CHECK_DONE();
	CHECK_EQ(call(1), 1001);
	n = sites_in((void *)call, (void *)handle_v2, &bound);
	CHECK(n >= 1);
	CHECK_EQ(bound, n);

	CHECK_EQ(multiverse_redirect((void *)handle, NULL), 0);
	CHECK_EQ(call(1), 2);
	n = sites_in((void *)call, (void *)handle_v2, &bound);
	CHECK_EQ(bound, 0);
	CHECK_EQ(dlclose(h), 0);
	CHECK_EQ(text_diffs(), 0);
	CHECK_DONE();
}
