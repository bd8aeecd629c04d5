/* SPDX-License-Identifier: MIT */
/* Objects from GCC and from Clang in one program: one commit binds the
 * functions and call sites of both, and one revert restores both.  Both
 * compilers put the module's constructor and destructor in a COMDAT
 * group of the same name: whichever object comes first in the link,
 * the module registers once. */
#define _GNU_SOURCE
#include "check.h"
#include "registrations.h"
#include "shared.h"

int main(void)
{
	CHECK_EQ(registered, 1);
	mode = 1;
	CHECK_EQ(multiverse_commit(), 3);   /* and the pointer */
	CHECK_EQ(multiverse_is_committed(from_gcc), 1);
	CHECK_EQ(multiverse_is_committed(from_clang), 1);
	/* The sites in the other compiler's object are bound.  (Each answer
	 * of multiverse_info_fn() is read before the next call.) */
	const struct mv_info_fn *fi = multiverse_info_fn(from_gcc);
	CHECK(fi && fi->n_sites == 1 && fi->n_sites_skipped == 0 && fi->active != fi->generic);
	fi = multiverse_info_fn(from_clang);
	CHECK(fi && fi->n_sites == 1 && fi->n_sites_skipped == 0 && fi->active != fi->generic);
	mode = 0;               /* bound: no effect until the next commit */
	CHECK_EQ(call_from_gcc(2), 2006);
	CHECK_EQ(call_from_clang(2), 1010);
	CHECK_EQ(multiverse_commit(), 2);   /* the pointer did not change */
	CHECK_EQ(call_from_gcc(2), 2005);
	CHECK_EQ(call_from_clang(2), 1007);
	CHECK(multiverse_revert() >= 3);
	CHECK_EQ(multiverse_is_committed(from_gcc), 0);
	CHECK_EQ(multiverse_is_committed(from_clang), 0);
	mode = 1;
	CHECK_EQ(call_from_gcc(2), 2006);
	CHECK_EQ(call_from_clang(2), 1010);

	/* One commit of the pointer binds the calls compiled by both; the
	 * calls then no longer read it, until the revert. */
	hook = times_ten;
	CHECK_EQ(multiverse_commit_refs(&hook), 1);
	const struct mv_info_var *vi = multiverse_info_var(&hook);
	unsigned calls = 0;
	for (unsigned i = 0; vi && i < vi->n_sites; i++)
		calls += !is_clang_stub(multiverse_info_site(&hook, i)->addr);
	CHECK(vi && vi->is_fnptr && calls == 2);
	hook = plus_one;
	CHECK_EQ(hook_from_gcc(3), 1030);
	CHECK_EQ(hook_from_clang(3), 2030);
	CHECK_EQ(multiverse_revert_refs(&hook), 1);
	CHECK_EQ(hook_from_gcc(3), 1004);
	CHECK_EQ(hook_from_clang(3), 2004);
	CHECK_DONE();
}
