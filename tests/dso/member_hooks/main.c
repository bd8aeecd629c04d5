/* SPDX-License-Identifier: MIT */
/* Function-pointer members of objects in a shared library: called from
 * the library (through the object's GOT entry, and through memory for a
 * hidden object) and from the executable, made direct by commit and
 * indirect again by revert.  Whether the executable's site may become a
 * direct call depends on how far apart the loader put the modules, so
 * only its results after each commit are checked. */
#include "check.h"
#include "ops.h"

__attribute__((noinline)) int main_call_hook(int x) { return lib_ops.hook(x) * 10; }

int main(void)
{
	lib_set(&lib_ops.hook, ADD1);
	lib_set(&lib_ops.filter, NEG);
	lib_set(lib_private_hook(), TWICE);
	CHECK_EQ(lib_call_hook(1), 3);
	CHECK_EQ(lib_tail_filter(1), -1);
	CHECK_EQ(lib_call_private(1), 3);
	CHECK_EQ(main_call_hook(1), 20);

	CHECK(multiverse_commit() >= 3);
	const struct mv_info_var *vi = multiverse_info_var(&lib_ops.hook);
	CHECK(vi && vi->is_fnptr && !strcmp(vi->name, "lib_ops.hook"));
	CHECK(vi && vi->n_sites >= 2);
	vi = multiverse_info_var(lib_private_hook());
	CHECK(vi && vi->is_fnptr && !strcmp(vi->name, "private_ops[1].hook"));

	/* direct: new values wait for the next commit */
	lib_set(&lib_ops.hook, NEG);
	lib_set(&lib_ops.filter, ADD1);
	lib_set(lib_private_hook(), ADD1);
	CHECK_EQ(lib_call_hook(1), 3);
	CHECK_EQ(lib_tail_filter(1), -1);
	CHECK_EQ(lib_call_private(1), 3);

	CHECK_EQ(multiverse_commit_refs(&lib_ops.hook), 1);
	CHECK_EQ(lib_call_hook(1), 0);
	CHECK_EQ(main_call_hook(1), -10);
	CHECK_EQ(lib_tail_filter(1), -1);

	CHECK(multiverse_revert() >= 3);
	CHECK_EQ(lib_tail_filter(1), 2);
	CHECK_EQ(lib_call_private(1), 3);
	lib_set(&lib_ops.hook, TWICE);
	CHECK_EQ(lib_call_hook(1), 3);
	CHECK_EQ(main_call_hook(1), 20);
	CHECK_DONE();
}
