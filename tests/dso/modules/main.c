/* SPDX-License-Identifier: MIT */
/* A library, an executable and a dlopen'ed plugin sharing one runtime:
 * commit binds the library's functions everywhere, a plugin loaded after
 * the commit is bound at once, and dlclose restores everything outside the
 * plugin that reached into it before further commits; after a partial
 * commit a plugin is bound where it calls committed functions.  argv[1] is the
 * folder holding plugin.so. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "mvlib.h"

/* A function of the executable reading the library's switch. */
__attribute__((multiverse)) int main_fn(int x)
{
	return lib_mode ? x * 100 : x;
}

static int neg(int x) { return -x; }

int main(int argc, char **argv)
{
	char path[4096];

	if (argc < 2)
		return 2;
	snprintf(path, sizeof path, "%s/plugin.so", argv[1]);

	/* Calls before the commit resolve lazy PLT slots. */
	CHECK_EQ(lib_call(3), 1004);
	CHECK_EQ(lib_compute(3), 4);

	lib_mode = 1;
	lib_set_hook(neg);
	CHECK(multiverse_commit() >= 3);
	CHECK_EQ(multiverse_is_committed(lib_compute), 1);
	CHECK_EQ(multiverse_is_committed(main_fn), 1);
	CHECK_EQ(multiverse_info_fn(lib_compute)->n_sites_skipped, 0);
	lib_mode = 0;                   /* bound: no effect until commit */
	CHECK_EQ(lib_call(3), 1030);
	CHECK_EQ(lib_compute(3), 30);
	CHECK_EQ(main_fn(3), 300);
	CHECK_EQ(lib_call_hook(3), -2);
	/* The library's own call of lib_compute became a direct call. */
	CHECK(lib_changed_sites(lib_compute) >= 1);

	/* The public pointer switch: bound by its own commit, its calls no
	 * longer read it until the revert. */
	lib_public_hook_to_twice();
	CHECK_EQ(multiverse_commit_refs(&lib_public_hook), 1);
	CHECK_EQ(lib_changed_sites(&lib_public_hook), 1);
	lib_public_hook = neg;
	CHECK_EQ(lib_call_public_hook(3), 7);
	CHECK_EQ(multiverse_revert_refs(&lib_public_hook), 1);
	CHECK_EQ(lib_changed_sites(&lib_public_hook), 0);
	CHECK_EQ(lib_call_public_hook(3), -2);
	lib_public_hook = 0;            /* unbound and null: commits leave it */

	/* A plugin loaded now is bound at once, to lib_mode's current value
	 * (0), while lib_compute stays bound to 1. */
	void *h = dlopen(path, RTLD_NOW);
	CHECK(h != NULL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		CHECK_DONE();
	}
	int (*plugin_fn)(int) = (int (*)(int))dlsym(h, "plugin_fn");
	int (*plugin_calls_lib)(int) = (int (*)(int))dlsym(h, "plugin_calls_lib");
	int (*plugin_hook)(int) = (int (*)(int))dlsym(h, "plugin_hook");
	CHECK(plugin_fn && plugin_calls_lib && plugin_hook);
	CHECK_EQ(multiverse_is_committed(plugin_fn), 1);
	lib_mode = 1;
	CHECK_EQ(plugin_fn(10), 8);
	CHECK_EQ(plugin_calls_lib(10), 100 + 8);
	CHECK_EQ(multiverse_commit(), 1);   /* plugin_fn; the rest is bound already */
	CHECK_EQ(plugin_fn(10), 9);

	/* The library's pointer switch now calls into the plugin directly
	 * where it can reach it. */
	lib_set_hook(plugin_hook);
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(lib_call_hook(2), 15);

	/* dlclose: the plugin's records go, and what reached into it is
	 * restored, so the library's site calls through the pointer again. */
	CHECK_EQ(dlclose(h), 0);
	CHECK_EQ(multiverse_is_committed(plugin_fn), -ENOENT);
	CHECK_EQ(multiverse_is_committed(lib_compute), 1);
	lib_set_hook(neg);
	CHECK_EQ(lib_call_hook(2), -1);

	/* Further commits and reverts work. */
	lib_mode = 0;
	CHECK(multiverse_commit() >= 2);
	CHECK_EQ(lib_call(3), 1004);
	CHECK_EQ(main_fn(3), 3);
	CHECK(multiverse_revert() >= 3);
	CHECK_EQ(lib_changed_sites(lib_compute), 0);
	lib_mode = 1;
	CHECK_EQ(lib_call(3), 1030);

	/* After a partial commit only, a plugin loaded is bound where it
	 * calls a committed function, and its own functions stay generic. */
	CHECK(multiverse_commit_refs(&lib_mode) >= 2);
	h = dlopen(path, RTLD_NOW);
	CHECK(h != NULL);
	if (!h)
		CHECK_DONE();
	plugin_fn = (int (*)(int))dlsym(h, "plugin_fn");
	plugin_calls_lib = (int (*)(int))dlsym(h, "plugin_calls_lib");
	void *(*site_target)(void *) = (void *(*)(void *))dlsym(h, "plugin_site_target");
	CHECK(plugin_fn && plugin_calls_lib && site_target);
	CHECK_EQ(multiverse_is_committed(plugin_fn), 0);
	CHECK(multiverse_info_fn(lib_compute) != NULL);
	/* bound: a call to the variant, or the variant's code in the site */
	void *t = site_target(lib_compute);
	CHECK(t == multiverse_info_fn(lib_compute)->active ||
	      (t == PLUGIN_SITE_INLINED && multiverse_info_fn(lib_compute)->n_sites_inlined > 0));
	lib_mode = 0;                   /* read by the generic plugin_fn only */
	CHECK_EQ(plugin_calls_lib(10), 100 + 8);
	CHECK_EQ(dlclose(h), 0);
	CHECK_DONE();
}
