// SPDX-License-Identifier: MIT
/*
 * A module one of whose units says its records are of another descriptor
 * version (tests/kernel/suite.sh): the kernel must not read its records,
 * and the module runs its generics.
 */
#include <linux/module.h>
#include <linux/multiverse.h>

static bool __multiverse badver_flag;

__multiverse noinline int badver_fn(int x)
{
	return badver_flag ? -x : x;
}

/* as a unit of a future plugin would say it */
asm(".pushsection __multiverse_version, \"a\"\n.balign 4\n.long 999, 62\n.popsection");

static int __init mvbadver_init(void)
{
	pr_info("mvbadver: is_committed %d\n", multiverse_is_committed(badver_fn));
	return 0;
}

static void __exit mvbadver_exit(void)
{
}

module_init(mvbadver_init);
module_exit(mvbadver_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("Multiverse kernel tests: records of another descriptor version");
