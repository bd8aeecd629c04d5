// SPDX-License-Identifier: MIT
/*
 * The kernel suite's test module (tests/kernel/suite.sh): switches and
 * multiversed functions of its own, call sites into vmlinux's
 * (lib/multiverse/selftest.c), and a stress test in which kthreads on
 * every other CPU call the patched functions while this one commits and
 * reverts.  Each check prints "ok - NAME" or "not ok - NAME: why", which
 * suite.sh counts; loading fails if any check failed.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/multiverse.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "../check.h"

static bool __multiverse mode_double;
static int __multiverse __multiverse_values(0, 1, 2) level;
static unsigned int stress_rounds = 2000;
module_param(stress_rounds, uint, 0444);


__multiverse noinline int mvtest_compute(int x)
{
	if (mode_double)
		return 2 * x;
	return x + level;
}

/* A call site in this module, tail call included. */
static noinline int call_compute(int x)
{
	return mvtest_compute(x);
}

/* A function-pointer switch: its calls go through its stub, whose call
 * sites commit binds to the target of the moment. */
static noinline int add_one(int x) { return x + 1; }
static noinline int add_two(int x) { return x + 2; }
static __multiverse int (*hook)(int) = add_one;

static noinline int call_hook(int x)
{
	return hook(x) * 10;
}

/* A site record that names a 5-byte NOP, not a call: the runtime must
 * refuse it before it writes anything. */
extern const unsigned char mvtest_bogus_site[];
static noinline void bogus_site_holder(void)
{
	asm volatile("mvtest_bogus_site: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
		     ".pushsection __multiverse_site, \"aw\"\n.balign 8\n"
		     ".quad mvtest_bogus_site, mvtest_compute\n.long 0, 0\n.popsection");
}

/* vmlinux's selftest function (lib/multiverse/selftest.c): its switch
 * and body live in vmlinux, this site in the module.  And vmlinux's
 * function-pointer switch, bound here to add_two and left bound when the
 * module goes: the unload must restore vmlinux's site. */
__multiverse int mv_selftest_vmlinux(int x);
extern bool __multiverse mv_selftest_flag;
extern __multiverse int (*mv_selftest_hook)(int);
int mv_selftest_call_hook(int x);
static int (*vmlinux_hook)(int);

static void basic(void)
{
	const struct mv_info_fn *info;
	int r;

	mode_double = false;
	level = 1;
	r = multiverse_commit();
	check(r >= 0, "commit", "returned %d: %s", r, multiverse_last_error());
	check(multiverse_is_committed(mvtest_compute) == 1, "committed", "is_committed says %d",
	      multiverse_is_committed(mvtest_compute));
	level = 2;
	check(call_compute(5) == 6, "bound after commit", "compute(5) = %d, want 6 (level bound to 1)",
	      call_compute(5));
	info = multiverse_info_fn(mvtest_compute);
	check(info && info->n_sites >= 1 && info->n_variants == 4, "info",
	      "%u sites, %u variants", info ? info->n_sites : 0, info ? info->n_variants : 0);
	r = multiverse_revert();
	check(r >= 0 && call_compute(5) == 7, "revert", "returned %d, compute(5) = %d, want 7",
	      r, call_compute(5));
	mode_double = true;
	r = multiverse_commit_fn(mvtest_compute);
	mode_double = false;
	check(r >= 0 && call_compute(5) == 10, "commit_fn", "returned %d, compute(5) = %d, want 10",
	      r, call_compute(5));
	r = multiverse_revert_fn(mvtest_compute);
	check(r >= 0 && call_compute(5) == 7, "revert_fn", "returned %d, compute(5) = %d, want 7",
	      r, call_compute(5));
	r = multiverse_bind(&level, 0);
	level = 0;
	multiverse_commit_refs(&level);
	level = 1;
	check(r == 0 && call_compute(5) == 6, "bind 0: level unbound", "compute(5) = %d, want 6",
	      call_compute(5));
	multiverse_bind(&level, 1);
	multiverse_revert_refs(&level);
	check(multiverse_commit_fn(NULL) == -EINVAL, "NULL refused", "commit_fn(NULL) accepted");
	check(multiverse_commit_fn(basic) == -ENOENT, "unknown function refused",
	      "commit_fn(basic) accepted");

	mv_selftest_flag = true;
	multiverse_commit_refs(&mv_selftest_flag);
	mv_selftest_flag = false;
	check(mv_selftest_vmlinux(3) == 30, "site into vmlinux", "selftest(3) = %d, want 30",
	      mv_selftest_vmlinux(3));
	multiverse_revert_refs(&mv_selftest_flag);
	check(mv_selftest_vmlinux(3) == 3, "site into vmlinux reverted", "selftest(3) = %d, want 3",
	      mv_selftest_vmlinux(3));
}

static void fnptr(void)
{
	const struct mv_info_var *info;
	int r;

	hook = add_one;
	r = multiverse_commit_refs(&hook);
	hook = add_two;
	check(r >= 0 && call_hook(1) == 20, "function pointer bound", "returned %d, call_hook(1) = %d, want 20",
	      r, call_hook(1));
	info = multiverse_info_var(&hook);
	check(info && info->is_fnptr && info->n_sites == 1, "function pointer info", "%s, %u sites",
	      info && info->is_fnptr ? "a function pointer" : "not a function pointer",
	      info ? info->n_sites : 0);
	r = multiverse_revert_refs(&hook);
	check(r >= 0 && call_hook(1) == 30, "function pointer unbound", "returned %d, call_hook(1) = %d, want 30",
	      r, call_hook(1));
	hook = add_one;
}

static void bind_vmlinux_hook(void)
{
	int r;

	vmlinux_hook = mv_selftest_hook;
	mv_selftest_hook = add_two;
	r = multiverse_commit_refs(&mv_selftest_hook);
	/* the pointer again, for the calls through it once the module is
	 * gone; the site stays bound to add_two until then */
	mv_selftest_hook = vmlinux_hook;
	check(r >= 0 && mv_selftest_call_hook(1) == 3, "vmlinux switch bound into the module",
	      "returned %d, call_hook(1) = %d, want 3", r, mv_selftest_call_hook(1));
}

static void bogus(void)
{
	static const unsigned char nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	const struct mv_info_fn *info;

	multiverse_commit_fn(mvtest_compute);
	info = multiverse_info_fn(mvtest_compute);
	check(!memcmp(mvtest_bogus_site, nop5, 5) && info && info->n_sites_skipped == 1,
	      "bogus site left alone", "bytes %5ph, %u sites skipped", mvtest_bogus_site,
	      info ? info->n_sites_skipped : 0);
	multiverse_revert_fn(mvtest_compute);
	bogus_site_holder();
}

static atomic_t bad, running;

static int worker(void *unused)
{
	unsigned long n = 0;

	atomic_inc(&running);
	while (!kthread_should_stop()) {
		int x = n++ & 1023, r = call_compute(x);

		/* committed: 2x (mode_double bound); reverted: the generic
		 * reads level, 0 throughout */
		if (r != 2 * x && r != x)
			atomic_inc(&bad);
		if (!(n & 255))
			cond_resched();
	}
	return 0;
}

static void stress(void)
{
	struct task_struct **t = kcalloc(nr_cpu_ids, sizeof *t, GFP_KERNEL);
	/* once: this thread may move to another CPU while it makes the
	 * workers, and must still leave one CPU without a worker */
	int self = raw_smp_processor_id(), cpu, n = 0, errors = 0;

	if (!t) {
		check(0, "stress", "no memory");
		return;
	}
	level = 0;
	for_each_online_cpu(cpu) {
		if (cpu == self)
			continue;
		t[n] = kthread_create(worker, NULL, "mvtest/%d", cpu);
		if (IS_ERR(t[n]))
			continue;
		kthread_bind(t[n], cpu);
		wake_up_process(t[n++]);
	}
	/* every worker calls the code before the first commit */
	while (atomic_read(&running) < n)
		cond_resched();
	/* Mostly one function at a time, every 100th round the whole
	 * kernel: with many multiversed sites (the kernel case study's
	 * spinlocks: thousands) a whole commit takes a quarter second. */
	for (unsigned int i = 0; i < stress_rounds; i++) {
		bool whole = i % 100 == 0;

		mode_double = true;
		errors += (whole ? multiverse_commit() : multiverse_commit_fn(mvtest_compute)) < 0;
		mode_double = false;
		errors += call_compute(4) != 8;
		errors += (whole ? multiverse_revert() : multiverse_revert_fn(mvtest_compute)) < 0;
		errors += call_compute(4) != 4;
	}
	for (int i = 0; i < n; i++)
		kthread_stop(t[i]);
	kfree(t);
	check(!errors && !atomic_read(&bad) && n == num_online_cpus() - 1, "stress",
	      "%d API errors or wrong results here, %d in %d workers (%u CPUs online)",
	      errors, atomic_read(&bad), n, num_online_cpus());
	pr_info("stress: %u commits and reverts with %d workers\n", stress_rounds, n);
}

static int __init mvtest_init(void)
{
	basic();
	fnptr();
	bogus();
	stress();
	bind_vmlinux_hook();
	pr_info("mvtest: %d passed, %d failed\n", passed, failed);
	return failed ? -EINVAL : 0;
}

static void __exit mvtest_exit(void)
{
}

module_init(mvtest_init);
module_exit(mvtest_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("Multiverse kernel tests");
