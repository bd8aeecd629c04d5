// SPDX-License-Identifier: MIT
/*
 * A module loaded while the kernel is committed (tests/kernel/suite.sh):
 * the loader's COMING event binds its functions and its call sites, into
 * vmlinux too, before its init runs.  With fail=1 its init fails after
 * the checks, and the loader's GOING event must drop it whole.
 */
#include <linux/module.h>
#include <linux/multiverse.h>

#include "../check.h"

static bool fail;
module_param(fail, bool, 0444);

static bool __multiverse late_flag;

__multiverse noinline int late_fn(int x)
{
	return late_flag ? x + 100 : x;
}

static noinline int call_late(int x)
{
	return late_fn(x);
}

/* a site into vmlinux (tests/kernel/selftest.c) */
__multiverse int mv_selftest_vmlinux(int x);

static noinline int call_vmlinux(int x)
{
	return mv_selftest_vmlinux(x);
}

static int __init mvlate_init(void)
{
	late_flag = true;       /* written after the binding: no effect */
	check(multiverse_is_committed(late_fn) == 1 && call_late(1) == 1,
	      "bound at load", "is_committed %d, call_late(1) = %d, want 1",
	      multiverse_is_committed(late_fn), call_late(1));
	check(call_vmlinux(2) == 2, "site into vmlinux at load", "call_vmlinux(2) = %d",
	      call_vmlinux(2));
	pr_info("mvlate: %d passed, %d failed%s\n", passed, failed, fail ? ", failing on purpose" : "");
	return failed || fail ? -EINVAL : 0;
}

static void __exit mvlate_exit(void)
{
}

module_init(mvlate_init);
module_exit(mvlate_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("Multiverse kernel tests: a module loaded while committed");
