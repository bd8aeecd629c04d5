/* SPDX-License-Identifier: MIT */
/* A probe set to a function of a plugin: committed, the function that
 * tests it calls the plugin directly; dlclose of the plugin sends that
 * function back to its generic and the probe's sites back to indirect
 * calls before the plugin's code goes, and later commits work.  argv[1]
 * is the folder holding plugin.so. */
#include <dlfcn.h>
#include <stdio.h>
#include "check.h"

MULTIVERSE void (*trace)(long);

MULTIVERSE __attribute__((noinline)) long step(long x)
{
	if (trace)
		trace(x);
	return x + 1;
}

__attribute__((noinline)) long call_step(long x) { return step(x) * 2; }

static long local_seen;
static void local_trace(long x) { local_seen += x; }

static int committed(void *fn)
{
	const struct mv_info_fn *f = multiverse_info_fn(fn);
	return f && f->committed;
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc < 2)
		return 2;
	snprintf(path, sizeof path, "%s/plugin.so", argv[1]);
	void *h = dlopen(path, RTLD_NOW);
	CHECK(h != NULL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		CHECK_DONE();
	}
	long *seen = (long *)dlsym(h, "plugin_seen");
	trace = (void (*)(long))dlsym(h, "plugin_trace");
	CHECK(seen && trace);
	if (!seen || !trace)
		CHECK_DONE();

	CHECK(multiverse_commit() > 0);
	CHECK(committed(step));
	CHECK_EQ(multiverse_info_var(&trace)->n_sites >= 1, 1);
	trace = NULL;                    /* bound: still calls the plugin */
	CHECK_EQ(call_step(3), 8);
	CHECK_EQ(step(4), 5);
	CHECK_EQ(*seen, 7);

	/* The plugin goes: its function is no longer called, from the
	 * variant or from the probe's sites. */
	CHECK_EQ(dlclose(h), 0);
	CHECK(!committed(step));
	CHECK_EQ(multiverse_is_committed(&trace), 0);
	CHECK_EQ(call_step(3), 8);       /* the generic: trace is NULL */
	/* The probe's sites call through the pointer again. */
	trace = local_trace;
	CHECK_EQ(call_step(2), 6);
	CHECK_EQ(local_seen, 2);
	local_seen = 0;

	/* Later commits work, with a probe of the executable's own. */
	CHECK(multiverse_commit() > 0);
	CHECK(committed(step));
	CHECK_EQ(call_step(5), 12);
	CHECK_EQ(local_seen, 5);
	trace = NULL;
	CHECK(multiverse_commit() > 0);
	CHECK_EQ(call_step(5), 12);
	CHECK_EQ(local_seen, 5);
	CHECK(multiverse_revert() > 0);
	CHECK_DONE();
}
