// SPDX-License-Identifier: MIT
/*
 * The spinlock case study's module (case-studies/linux/run.sh).  Built
 * against each kernel of the study, so its spin_lock() call sites are
 * that kernel's: in the multiversed kernel they are Multiverse call sites
 * of this module, bound when it is loaded.
 *
 *   insmod mvspin.ko checks=1      lock semantics in the current mode
 *   insmod mvspin.ko stress_ms=T   threads on every CPU count under one
 *                                  lock for T ms, or until 1 is written to
 *                                  its parameter stress_stop, then check
 *                                  the count
 *   insmod mvspin.ko bench=1       guest time per lock + unlock pair, and
 *                                  per interrupts off + on pair (PV-ops)
 *
 * Results go to the kernel log as "ok - NAME", "not ok - NAME: why" and
 * "bench: NAME min X median Y" lines, all before insmod returns.  The
 * module stays loaded, so that its call sites can be seen in debugfs.
 *
 * bench times REPS runs of LOOPS pairs each with ktime_get_ns(), with
 * interrupts off, and subtracts the same loop without the lock.  Under
 * qemu -icount shift=0 one nanosecond of guest time is one instruction,
 * so it prints instructions per pair, in hundredths.  In the multiversed
 * kernel it also times reverting and committing spinlock_smp's functions,
 * which rewrites every call site of them (vmlinux's and this module's).
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/ktime.h>
#include <linux/sort.h>
#include <linux/cpumask.h>
#include <linux/multiverse.h>
#include <linux/sched/clock.h>

static bool checks;
module_param(checks, bool, 0);
static unsigned int stress_ms;
module_param(stress_ms, uint, 0);
/* written through sysfs while insmod runs: the stress ends before its time */
static bool stress_stop;
module_param(stress_stop, bool, 0644);
static bool bench;
module_param(bench, bool, 0);

static DEFINE_SPINLOCK(lock);

/* What a call of spin_lock() and of spin_unlock() compile to in this
 * kernel, for run.sh to set beside the lock functions' variants. */
noinline void mvspin_lock(spinlock_t *l)
{
	spin_lock(l);
}

noinline void mvspin_unlock(spinlock_t *l)
{
	spin_unlock(l);
}

/* Calls through the PV-ops switches that outlive the module's init. */
noinline bool mvspin_irqs_off_then_on(void)
{
	bool off;

	local_irq_disable();
	off = irqs_disabled();
	local_irq_enable();
	return off && !irqs_disabled();
}

#define check(name, cond)                                                   \
	pr_info("%sok - %s\n", (cond) ? "" : "not ", name)

static void run_checks(void)
{
	bool one = num_online_cpus() == 1;
	unsigned long flags;
	int got;

	spin_lock(&lock);
	check("spin_is_locked() while held", spin_is_locked(&lock));
	got = spin_trylock(&lock);
	check("spin_trylock() fails while held", !got);
	if (got)
		spin_unlock(&lock);
	spin_unlock(&lock);
	check("spin_is_locked() after unlock", !spin_is_locked(&lock));

	spin_lock_irqsave(&lock, flags);
	check("spin_lock_irqsave() disables interrupts", irqs_disabled());
	check("spin_lock_irqsave() takes the word", spin_is_locked(&lock));
	spin_unlock_irqrestore(&lock, flags);
	check("spin_unlock_irqrestore() restores interrupts", !irqs_disabled());

	spin_lock_bh(&lock);
	check("spin_lock_bh() disables bottom halves", in_softirq());
	spin_unlock_bh(&lock);
	got = spin_trylock_bh(&lock);
	check("spin_trylock_bh() takes a free lock", got);
	if (got)
		spin_unlock_bh(&lock);

	check("local_irq_disable() and local_irq_enable()", mvspin_irqs_off_then_on());
	mvspin_lock(&lock);
	check("spin_lock() disables preemption", preempt_count() > 0 || !IS_ENABLED(CONFIG_PREEMPT_COUNT));
	mvspin_unlock(&lock);
	pr_info("mode: %s, %u CPU(s) online\n", one ? "one CPU" : "SMP", num_online_cpus());
}

/* Threads count under the lock with a read, a pause and a write: a lock
 * that excluded nobody would lose increments.  run_stress() waits until
 * every thread has begun (a thread stopped before it runs never would),
 * then stops each with kthread_stop(), which returns once the thread has
 * left this module's code. */
#define MAX_THREADS (NR_CPUS + 1)
static unsigned long counter;
static unsigned long counted[MAX_THREADS];
static struct completion began[MAX_THREADS];

static int stress_thread(void *data)
{
	unsigned long *slot = &counted[(long)data];
	u64 end = ktime_get_ns() + (u64)stress_ms * NSEC_PER_MSEC;
	unsigned long n = 0, v, flags;

	complete(&began[(long)data]);
	while (ktime_get_ns() < end && !READ_ONCE(stress_stop)) {
		for (int i = 0; i < 64; i++, n++) {
			switch (n % 3) {
			case 0:
				spin_lock(&lock);
				break;
			case 1:
				spin_lock_irqsave(&lock, flags);
				break;
			default:
				while (!spin_trylock(&lock))
					cpu_relax();
			}
			v = READ_ONCE(counter);
			cpu_relax();
			WRITE_ONCE(counter, v + 1);
			if (n % 3 == 1)
				spin_unlock_irqrestore(&lock, flags);
			else
				spin_unlock(&lock);
		}
		cond_resched();
	}
	*slot = n;
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void run_stress(void)
{
	unsigned int threads = min_t(unsigned int, num_possible_cpus() + 1, MAX_THREADS), started = 0;
	struct task_struct *t[MAX_THREADS];
	unsigned long total = 0;

	for (unsigned int i = 0; i < threads; i++) {
		counted[i] = 0;
		init_completion(&began[i]);
		t[i] = kthread_run(stress_thread, (void *)(long)i, "mvspin/%u", i);
		if (IS_ERR(t[i])) {
			pr_info("not ok - stress: cannot start a thread (%ld)\n", PTR_ERR(t[i]));
			break;
		}
		started++;
	}
	for (unsigned int i = 0; i < started; i++)
		wait_for_completion(&began[i]);
	for (unsigned int i = 0; i < started; i++) {
		kthread_stop(t[i]);
		total += counted[i];
	}
	pr_info("%sok - stress: %u threads counted %lu times under the lock\n",
		counter == total && counter > 0 && started == threads ? "" : "not ",
		started, counter);
	if (counter != total)
		pr_info("stress: the count is %lu, the increments %lu\n", counter, total);
}

#define LOOPS 1000
#define REPS 51

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 samples[REPS];

/* min and median of REPS runs, in guest nanoseconds per LOOPS */
static void summarize(u64 *min, u64 *median)
{
	sort(samples, REPS, sizeof(samples[0]), cmp_u64, NULL);
	*min = samples[0];
	*median = samples[REPS / 2];
}

/* With interrupts off (irqs_off) or on: a loop that turns them off and
 * on again is timed with them on, and the min of the runs leaves out
 * those that a timer interrupt hit. */
#define TIME_LOOP_IRQS(irqs_off, body)                                      \
	do {                                                                \
		for (int r = 0; r < REPS; r++) {                            \
			unsigned long irq;                                  \
			u64 t0;                                             \
			local_irq_save(irq);                                \
			if (!(irqs_off))                                    \
				local_irq_enable();                         \
			t0 = ktime_get_ns();                                \
			for (int i = 0; i < LOOPS; i++) {                   \
				body;                                       \
				barrier();                                  \
			}                                                   \
			samples[r] = ktime_get_ns() - t0;                   \
			local_irq_restore(irq);                             \
		}                                                           \
	} while (0)
#define TIME_LOOP(body) TIME_LOOP_IRQS(1, body)

static void report(const char *name, u64 base_min, u64 base_median)
{
	u64 min, median;

	summarize(&min, &median);
	min = min > base_min ? min - base_min : 0;
	median = median > base_median ? median - base_median : 0;
	/* per pair, in hundredths: the samples are per LOOPS = 1000 pairs */
	pr_info("bench: %s min %llu.%02llu median %llu.%02llu\n", name,
		min / 1000, min % 1000 / 10, median / 1000, median % 1000 / 10);
}

static void run_bench(void)
{
	u64 base_min, base_median;
	unsigned long flags;

	TIME_LOOP((void)0);
	summarize(&base_min, &base_median);
	TIME_LOOP(spin_lock(&lock); spin_unlock(&lock));
	report("spin_lock+spin_unlock", base_min, base_median);
	TIME_LOOP(spin_lock_irqsave(&lock, flags); spin_unlock_irqrestore(&lock, flags));
	report("spin_lock_irqsave+spin_unlock_irqrestore", base_min, base_median);
	TIME_LOOP_IRQS(0, (void)0);
	summarize(&base_min, &base_median);
	TIME_LOOP_IRQS(0, local_irq_disable(); local_irq_enable());
	report("local_irq_disable+local_irq_enable", base_min, base_median);
	pr_info("bench: %u CPU(s) possible, %u online\n", num_possible_cpus(), num_online_cpus());
}

#ifdef CONFIG_SPINLOCK_UP_MULTIVERSE
#define BIND_REPS 5

/* min of BIND_REPS reverts and commits, in guest nanoseconds */
static void run_bind_bench(void)
{
	u64 revert = U64_MAX, commit = U64_MAX;

	for (int r = 0; r < BIND_REPS; r++) {
		u64 t0 = local_clock(), t1, t2;
		int rv = multiverse_revert_refs(&spinlock_smp);

		t1 = local_clock();
		if (multiverse_commit_refs(&spinlock_smp) < 0 || rv < 0) {
			pr_info("not ok - bind: %s\n", multiverse_last_error());
			return;
		}
		t2 = local_clock();
		revert = min(revert, t1 - t0);
		commit = min(commit, t2 - t1);
	}
	pr_info("bind: revert_refs %llu commit_refs %llu\n", revert, commit);
}
#else
static void run_bind_bench(void) { }
#endif

static int __init mvspin_init(void)
{
	if (checks)
		run_checks();
	if (stress_ms)
		run_stress();
	if (bench) {
		run_bench();
		run_bind_bench();
	}
	return 0;
}
module_init(mvspin_init);

static void __exit mvspin_exit(void)
{
}
module_exit(mvspin_exit);

MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("Multiverse spinlock case study: checks, stress and benchmark");
