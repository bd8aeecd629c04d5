// SPDX-License-Identifier: MIT
/*
 * CONFIG_MULTIVERSE_SELFTEST: a switch and multiversed functions in
 * vmlinux, for the kernel suite (tests/kernel/): the test module calls
 * them (sites in a module, body in vmlinux), and they are committed at
 * boot from an early initcall, before the second CPU starts.  Reading
 * /sys/kernel/debug/multiverse_selftest/call_hook runs vmlinux's call
 * site of mv_selftest_hook, which the suite does after the module it was
 * bound to has gone.  Writing 1 to .../corrupt_site changes the call of
 * mv_selftest_vmlinux() in mv_selftest_calls() behind the runtime's
 * back (into the kernel's 5-byte NOP), 0 puts the call back; reading it
 * gives the site's bytes.  linux/prepare.sh copies this file to
 * lib/multiverse/selftest.c, where it sees the runtime's tables.
 */
#include <linux/init.h>
#include <linux/export.h>
#include <linux/kallsyms.h>
#include <linux/multiverse.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/memory.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <asm/nops.h>
#include <asm/text-patching.h>

#include "internal.h"

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

/* The site of mv_selftest_vmlinux() in mv_selftest_calls(), as the
 * runtime's tables have it, and its original bytes. */
static u8 *site;
static u8 site_orig[5];

static u8 *find_site(void)
{
	struct mv_fn *f;

	mv_lock();
	f = mv_sync() < 0 ? NULL : mv_find_fn(mv_selftest_vmlinux);
	if (f)
		mv_check_sites(f->site0, f->n_sites, f, f->desc->name, &f->checked);
	for (size_t i = 0; f && i < f->n_sites && !site; i++) {
		struct mv_area *a = &mv.sites[f->site0 + i].area;

		unsigned long size, offset, at = (unsigned long)a->addr;

		if (kallsyms_lookup_size_offset(at, &size, &offset) &&
		    at - offset == (unsigned long)mv_selftest_calls) {
			site = a->addr;
			memcpy(site_orig, mv_orig(a), sizeof site_orig);
		}
	}
	mv_unlock();
	return site;
}

static ssize_t corrupt_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *pos)
{
	bool on;
	int err = kstrtobool_from_user(ubuf, len, &on);

	if (err)
		return err;
	if (!find_site())
		return -ENOENT;
	mutex_lock(&text_mutex);
	text_poke_bp(site, on ? x86_nops[5] : site_orig, 5, NULL);
	mutex_unlock(&text_mutex);
	return len;
}

static ssize_t corrupt_read(struct file *file, char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[32];

	if (!find_site())
		return -ENOENT;
	snprintf(buf, sizeof buf, "%5ph\n", site);
	return simple_read_from_buffer(ubuf, len, pos, buf, strlen(buf));
}

static const struct file_operations corrupt_fops = {
	.read = corrupt_read,
	.write = corrupt_write,
	.llseek = default_llseek,
};

static int __init mv_selftest_debugfs(void)
{
	struct dentry *dir = debugfs_create_dir("multiverse_selftest", NULL);

	debugfs_create_file_unsafe("call_hook", 0444, dir, NULL, &call_hook_fops);
	debugfs_create_file("corrupt_site", 0600, dir, NULL, &corrupt_fops);
	return 0;
}
late_initcall(mv_selftest_debugfs);
