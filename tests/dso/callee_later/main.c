/* SPDX-License-Identifier: MIT */
/* A library whose call sites reach a multiversed function of the
 * executable, which registers after it: the library's module is merged
 * first, with sites whose callee is not in the tables yet, and they join
 * their function when the executable's module is merged: the function
 * counts all its sites, in address order.  The executable has enough
 * sites for the runtime to place them by callee, among the library's
 * records.  Commit binds the executable's sites; the library's lie too
 * far from the variants for a direct call, and reach them through the
 * generic's entry. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include "check.h"
#include "callee_later.h"
#include "many_sites.h"

__attribute__((multiverse)) int exe_mode;

__attribute__((multiverse)) int exe_fn(int x)
{
	return exe_mode ? x * 100 : x;
}

__attribute__((noinline)) static int exe_call(int x)
{
	return exe_fn(x) + 1;
}

/* each call takes the last one's result: none can be left out */
__attribute__((noinline)) static int exe_many(int x)
{
	REPEAT1024(x = exe_fn(x);)
	return x;
}

/* Whether site s is in the executable, not the library. */
static int exe_site(const struct mv_info_site *s)
{
	Dl_info site, here;

	return dladdr(s->addr, &site) && dladdr((void *)&exe_call, &here) &&
	       site.dli_fbase == here.dli_fbase;
}

static void check_sites(int committed)
{
	const struct mv_info_fn *f = multiverse_info_fn(exe_fn);
	uintptr_t last = 0;
	unsigned n_exe = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ(f->n_sites, 3 + 1 + 1024);   /* 3 in the library */
	for (unsigned i = 0; i < f->n_sites; i++) {
		const struct mv_info_site *s = multiverse_info_site(exe_fn, i);

		CHECK(s != NULL);
		if (!s)
			continue;
		CHECK((uintptr_t)s->addr > last);
		last = (uintptr_t)s->addr;
		n_exe += exe_site(s);
		if (committed && exe_site(s))
			CHECK(s->holds != MULTIVERSE_SITE_ORIGINAL && s->holds != MULTIVERSE_SITE_SKIPPED);
		else if (!committed)
			CHECK_EQ(s->holds, MULTIVERSE_SITE_ORIGINAL);
	}
	CHECK_EQ(n_exe, 1 + 1024);
}

int main(void)
{
	CHECK_EQ(lib_call(3), 3 + 9 + 1000);
	CHECK_EQ(lib_call_twice(3), 3 + 4);
	CHECK_EQ(exe_call(3), 4);
	CHECK_EQ(exe_many(3), 3);
	check_sites(0);

	exe_mode = 1;
	CHECK(multiverse_commit() >= 2);
	check_sites(1);
	CHECK(multiverse_info_fn(lib_own)->n_sites >= 1);
	CHECK_EQ(lib_call(3), 300 + 6 + 1000);
	CHECK_EQ(lib_call_twice(3), 300 + 400);
	CHECK_EQ(exe_call(3), 301);
	CHECK_EQ(exe_many(0), 0);

	CHECK(multiverse_revert() >= 2);
	check_sites(0);
	exe_mode = 0;
	CHECK_EQ(lib_call(3), 3 + 9 + 1000);
	CHECK_EQ(exe_call(3), 4);
	CHECK_DONE();
}
