// SPDX-License-Identifier: MIT
/*
 * CONFIG_MULTIVERSE_SELFTEST: a switch and multiversed functions in
 * vmlinux, for the kernel suite (tests/kernel/): the test module calls
 * them (sites in a module, body in vmlinux), and they are committed at
 * boot from an early initcall, before the second CPU starts.  Reading
 * /sys/kernel/debug/multiverse_selftest/call_hook runs vmlinux's call
 * site of mv_selftest_hook, which the suite does after the module it was
 * bound to has gone.  linux/prepare.sh copies this file to
 * lib/multiverse/selftest.c.
 */
#include <linux/init.h>
#include <linux/export.h>
#include <linux/multiverse.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/printk.h>

bool __multiverse mv_selftest_flag;
EXPORT_SYMBOL_GPL(mv_selftest_flag);

/* Bound at boot to the CPU count seen then: 1, from an early initcall. */
static unsigned int __multiverse __multiverse_values(1, 2, 3, 4) boot_cpus;

__multiverse noinline int mv_selftest_vmlinux(int x)
{
	return mv_selftest_flag ? 10 * x : x;
}
EXPORT_SYMBOL_GPL(mv_selftest_vmlinux);

__multiverse noinline unsigned int mv_selftest_boot_cpus(void)
{
	return boot_cpus;
}

/* A function-pointer switch in vmlinux that the test module binds to one
 * of its functions: unloading the module must restore this site. */
static int mv_selftest_negate(int x)
{
	return -x;
}
__multiverse int (*mv_selftest_hook)(int) = mv_selftest_negate;
EXPORT_SYMBOL_GPL(mv_selftest_hook);

noinline int mv_selftest_call_hook(int x)
{
	return mv_selftest_hook(x);
}
EXPORT_SYMBOL_GPL(mv_selftest_call_hook);

/* Call sites in vmlinux's text (those in mv_selftest_boot() go with the
 * init memory). */
noinline int mv_selftest_calls(int x)
{
	return mv_selftest_vmlinux(x) + mv_selftest_boot_cpus();
}
EXPORT_SYMBOL_GPL(mv_selftest_calls);

static int __init mv_selftest_boot(void)
{
	int r;

	boot_cpus = num_online_cpus();
	r = multiverse_commit_refs(&boot_cpus);
	boot_cpus = 0;
	pr_info("multiverse selftest: committed at boot with %u CPU(s) online: %d, reads %u, %d\n",
		num_online_cpus(), r, mv_selftest_boot_cpus(), mv_selftest_calls(0));
	return 0;
}
early_initcall(mv_selftest_boot);

static int call_hook_get(void *data, u64 *val)
{
	*val = (u64)(s64)mv_selftest_call_hook(1);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(call_hook_fops, call_hook_get, NULL, "%lld\n");

static int __init mv_selftest_debugfs(void)
{
	debugfs_create_file_unsafe("call_hook", 0444,
				   debugfs_create_dir("multiverse_selftest", NULL),
				   NULL, &call_hook_fops);
	return 0;
}
late_initcall(mv_selftest_debugfs);
