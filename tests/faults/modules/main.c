/* SPDX-License-Identifier: MIT */
/*
 * Faults in the batches of module loading and unloading: the sequence
 * commits, dlopen()s a module (bound at once), commits a function-pointer
 * switch of a shared library (lib.c) to a function in it, and dlclose()s
 * it (which must restore the library's site bound into it), while workers run the executable's patched code;
 * every step fails in turn, once and from then on, as in ../batch.c.
 * An unloading batch that fails may only go forward: its breakpoints
 * emulate the restored instructions.  argv[1] is the folder of plugin.so.
 */
#include "faults.h"

#include <dlfcn.h>

/* lib.c: its hook_default is the negation; NULL sets it */
static int negate(int x) { return -x; }
int call_hookp(int x);
void lib_set_hook(int (*fn)(int));
void *lib_hook_switch(void);

static char path[4096];

static long trial(int kind, long n, int keep_failing)
{
	char when[128];
	long calls;
	int r, unreachable = 0;

	__multiverse_fault(kind, n, keep_failing);
	snprintf(when, sizeof when, "%s fault #%ld%s", kind_name[kind], n,
		 keep_failing ? " and after" : "");
	/* What the pointer switch's sites call: bound, or hookp itself. */
	int (*bound)(int) = NULL;

	set(&cfgs[0]);
	r = multiverse_commit();
	if (r >= 0 || strstr(multiverse_last_error(), "new code"))
		bound = negate;
	check_reported(bound != NULL, &cfgs[0], &cfgs[0], when);

	void *h = dlopen(path, RTLD_NOW);
	LIVE_CHECK(h != NULL);
	if (!h)
		return 0;
	int (*plug_call)(int) = (int (*)(int))dlsym(h, "plug_call");
	int (*plug_target)(int) = (int (*)(int))dlsym(h, "plug_target");
	for (int x = 0; x < 5; x++)
		LIVE_CHECK_EQ(plug_call(x), 2 * x + 1);

	int (*hookp)(int) = plug_target;
	lib_set_hook(hookp);
	r = multiverse_commit();
	if (r >= 0 || strstr(multiverse_last_error(), "new code"))
		bound = plug_target;
	for (int x = 0; x < 5; x++)
		LIVE_CHECK_EQ(call_hookp(x), (bound ? bound : hookp)(x));
	if (bound == plug_target)
		LIVE_CHECK_EQ(multiverse_is_committed(lib_hook_switch()), 1);

	/* Not committed: the sites may still call plug_target directly,
	 * and unloading must restore them. */
	lib_set_hook(NULL);
	long allocs = __multiverse_fault_calls(F_ALLOC);
	dlclose(h);
	/* Unloading must not depend on memory: it allocates nothing. */
	LIVE_CHECK_EQ(__multiverse_fault_calls(F_ALLOC), allocs);
	unreachable = strstr(multiverse_last_error(), "could not be written at all") != NULL;
	if (!unreachable)
		for (int x = 0; x < 5; x++)
			LIVE_CHECK_EQ(call_hookp(x), -x);

	calls = __multiverse_fault_calls(kind);
	__multiverse_fault(kind, 0, 0);

	check_converges(when);
	if (!unreachable)
		for (int x = 0; x < 5; x++)
			LIVE_CHECK_EQ(call_hookp(x), -x);
	return calls;
}

int main(int argc, char **argv)
{
	struct worker w[2];
	int counts[4][2] = { { 0 } };

	if (argc < 2)
		return 2;
	snprintf(path, sizeof path, "%s/plugin.so", argv[1]);
	faults_guard(120);
	LIVE_CHECK_EQ(text_diffs(), 0);
	workload_start(w, 2);
	/* Allocations happen where a module's records are merged, before
	 * anything is written; a module that could not be merged runs its
	 * generic code until an API call merges it. */
	for (int kind = 0; kind < 4; kind++)
		for (int keep = 0; keep < 2; keep++)
			if (kind != F_OPEN)
				counts[kind][keep] = sweep(trial, kind, keep);
	workload_join(w, 2, 1);
	printf("faults in modules: write %d/%d, sync %d/%d, alloc %d/%d points "
	       "(once/for good)\n", counts[F_WRITE][0], counts[F_WRITE][1],
	       counts[F_SYNC][0], counts[F_SYNC][1], counts[F_ALLOC][0],
	       counts[F_ALLOC][1]);
	/* (Batches that change a copied body, or on AArch64 an inlined
	 * instruction, stop the workers instead of syncing: fewer syncs.) */
	LIVE_CHECK(counts[F_WRITE][1] >= 10 && counts[F_SYNC][1] >= 3 &&
		   counts[F_ALLOC][1] >= 3);
	return live_done("faults/modules");
}
