/* SPDX-License-Identifier: MIT */
/*
 * Linux user space: stopping every other thread while the text changes in
 * a way the architecture does not let running threads see happen
 * (mv_arch_live_safe: on AArch64, to or from an inlined movz, movn or
 * ret).  The user-space counterpart of the kernel's stop_machine().
 *
 * The protocol:
 *
 *   1. A new stop generation g (odd) is published, with a count of parked
 *      threads of 0, both in one 64-bit word.
 *   2. Every other thread is sent SIGTRAP by rt_tgsigqueueinfo(), coded
 *      SI_QUEUE and carrying our cookie.  The runtime keeps SIGTRAP
 *      deliverable in every thread and every handler (mv_trap_ready()
 *      checked it just before), and its handler runs with SIGTRAP
 *      blocked, so a thread never parks inside the trap handler itself,
 *      where it might be counted busy (trap-tables.c).
 *   3. The handler counts itself into generation g, if g is still the
 *      one in progress, and waits on a futex until the generation moves
 *      on.  It runs nothing but its own code meanwhile.
 *   4. The caller lists /proc/self/task, signalling every thread it has
 *      not signalled yet, until the count of parked threads equals the
 *      thread count of /proc/self/status read after it, less itself (and
 *      less the main thread if it is a zombie after pthread_exit()).
 *      Parked threads neither leave nor exit, so then every thread is
 *      parked, whatever threads were created or exited meanwhile and
 *      whatever a listing that raced with them missed.
 *   5. The caller writes the text; mv_text_write() cleans the caches for
 *      it (DC CVAU, IC IVAU, DSB ISH), which completes for every core
 *      before the next step.
 *   6. The generation moves on (a release store) and the waiters are
 *      woken.  Each returns from its handler through rt_sigreturn, whose
 *      exception return (ERET) is a context synchronization event: the
 *      thread fetches the new instructions, never a stale or a half
 *      written one.  The thread's interrupted context is resumed as it
 *      was: at worst it is about to execute a patch area, which it then
 *      runs whole, in its new form.
 *
 * 4b. For a batch that changes regions (several instructions at once), the
 *     caller passes inside(pc).  Each thread, once counted in, notes
 *     where it was interrupted and whether its mask holds the in-handler
 *     mark (linux-user.h); the caller waits for the notes.  A thread
 *     inside a region, or in a signal handler (which may have interrupted
 *     one, out of sight), is let go at once, with all the others, and the stop starts over a
 *     moment later: the bodies in regions are short and run straight
 *     through, and handlers return.  A signal that reaches a thread
 *     before it ran again is taken on its way out of rt_sigreturn, at
 *     the same place: on a busy machine the thread would be found there
 *     every time.  So the caller waits until the thread in the way has
 *     left its wait, then pauses (50 us, doubling up to 10 ms) before
 *     stopping again.  A thread still there when the time runs out fails
 *     the stop, as below.
 *
 * 4c. A thread may block SIGTRAP by the raw system call, unseen by the
 *     runtime, and then wait for a lock that a thread parked already
 *     holds: musl's fork(), pthread_create() and posix_spawn() block
 *     every signal so, and take the C library's locks.  Neither could go
 *     on until the time ran out.  So once a stop has waited BLOCKED_MS,
 *     and every BLOCKED_MS after, the caller looks at each thread it is
 *     still waiting for: if one blocks SIGTRAP and sleeps in futex(),
 *     everyone is let go at once, the caller waits until that thread no
 *     longer blocks SIGTRAP, pauses as in 4b, and stops again, all
 *     within STOP_TIMEOUT_MS.  Letting go is always safe: nothing was
 *     written yet.
 *
 * If step 4 is not reached within STOP_TIMEOUT_MS (a thread stopped by a
 * debugger or SIGSTOP, or sleeping uninterruptibly for that long), the
 * stop is abandoned: step 6 runs at once, nothing was written, and the
 * error names the thread.  A signal that arrives after its stop ended
 * finds no generation in progress and returns at once.  The signal of a
 * thread that already had a SIGTRAP pending is dropped by the kernel
 * (standard signals do not queue twice), so unparked threads are sent
 * it again every RESEND_MS.
 *
 * The cost: every thread takes a signal.  A thread blocked in a system
 * call is interrupted as by any handled signal: the call restarts (the
 * handler has SA_RESTART) unless it is one that fails with EINTR whatever
 * the flags (signal(7): nanosleep(), epoll_wait(), sem_wait(), ...).
 *
 * While the others are parked, one of them may hold any lock of the C
 * library: the caller must not allocate, print or load.  This file lists
 * threads with getdents64() into a buffer on the stack, and messages wait
 * for mv_world_resume() (error.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "linux-user.h"

#define STOP_TIMEOUT_MS 3000    /* MULTIVERSE_STOP_TIMEOUT_MS sets another */
#define RESEND_MS 100
#define BLOCKED_MS 5            /* 4c: a stop longer than this looks why */

static uint32_t stop_gen;       /* odd while a stop is in progress */
static uint64_t parked;         /* generation << 32 | parked threads */
static pid_t *signalled;        /* the threads sent this stop's signal */
static size_t n_signalled, cap_signalled;

/* Where each parked thread was (4b), in the order they parked: slot k
 * is the k-th to count itself in, and says so (gen) once written, and
 * again (left) once released.  Arrays outgrown are kept, not freed: a
 * thread released late may still write in one. */
struct seen {
	pid_t tid;
	int in_handler;
	uintptr_t pc;
	uint32_t gen, left;
};
static struct seen *seen;

static long futex(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

int mv_linux_park(const siginfo_t *si, uintptr_t pc, int in_handler)
{
	struct seen *note = 0;
	uint64_t w;
	uint32_t gen, k;

	if (si->si_code != SI_QUEUE || si->si_value.sival_ptr != (void *)&parked ||
	    si->si_pid != getpid())
		return 0;
	w = __atomic_load_n(&parked, __ATOMIC_ACQUIRE);
	do {
		if (!((w >> 32) & 1))
			return 1;       /* its stop is over */
	} while (!__atomic_compare_exchange_n(&parked, &w, w + 1, 0,
					      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	gen = (uint32_t)(w >> 32);
	/* Counted in as the k-th of generation gen: its note goes in slot
	 * k, which this stop's array has (cap_signalled, allocated before
	 * the generation began, is more than can park). */
	k = (uint32_t)w;
	if (k < cap_signalled) {
		note = &seen[k];
		note->tid = (pid_t)syscall(SYS_gettid);
		note->pc = pc;
		note->in_handler = in_handler;
		__atomic_store_n(&note->gen, gen, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&stop_gen, __ATOMIC_ACQUIRE) == gen)
		futex(&stop_gen, FUTEX_WAIT_PRIVATE, gen);
	if (note)
		__atomic_store_n(&note->left, gen, __ATOMIC_RELEASE);
	return 1;
}

static int send_stop(pid_t pid, pid_t tid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	si.si_signo = SIGTRAP;
	si.si_code = SI_QUEUE;
	si.si_pid = pid;
	si.si_uid = getuid();
	si.si_value.sival_ptr = &parked;
	return syscall(SYS_rt_tgsigqueueinfo, pid, tid, SIGTRAP, &si) ? -errno : 0;
}

static int was_signalled(pid_t tid)
{
	for (size_t i = 0; i < n_signalled; i++)
		if (signalled[i] == tid)
			return 1;
	return 0;
}

/* The state letter of /proc/self/task/TID/stat ('R', 'S', 'Z', ...), or
 * 0 if the thread is gone. */
static char task_state(const char *tid)
{
	unsigned long blocked;
	char state;

	return mv_linux_task_stat(tid, &state, &blocked, NULL) ? state : 0;
}

/* One look at the threads: signals those not signalled yet (every one,
 * if resend).  Counts the main thread if it is a zombie (it called
 * pthread_exit()): it stays counted in Threads: but never parks.
 * Returns 0, or a negative errno value. */
static int stop_round(pid_t pid, pid_t self, int resend, long *zombie)
{
	struct dirent64_head { uint64_t ino; int64_t off; unsigned short reclen;
			       unsigned char type; char name[]; };
	char buf[4096];
	long n;
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*zombie = 0;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < n; ) {
			struct dirent64_head *d = (struct dirent64_head *)(buf + off);
			pid_t tid = (pid_t)strtol(d->name, NULL, 10);
			int err;

			off += d->reclen;
			if (tid <= 0 || tid == self || (was_signalled(tid) && !resend))
				continue;
			if (tid == pid && task_state(d->name) == 'Z') {
				*zombie = 1;
				continue;
			}
			/* -ECANCELED: an injected fault (tests/faults), which
			 * nothing real returns here */
			err = mv_fault(MV_FAULT_STOP) ? -ECANCELED : send_stop(pid, tid);
			if (err == -ESRCH || err == -EAGAIN)
				continue;       /* gone; out of queued signals: next round */
			if (err) {
				close(fd);
				return err;
			}
			if (!was_signalled(tid)) {
				if (n_signalled == cap_signalled) {
					close(fd);
					return -EAGAIN;
				}
				signalled[n_signalled++] = tid;
			}
		}
	}
	close(fd);
	return n < 0 ? -errno : 0;
}

/* What the laggard was doing, for the message: its system call (the
 * first field of /proc's syscall file: a number, -1 or "running"), and
 * whether it blocked SIGTRAP. */
static char late_call[16];
static int late_blocks;

static int blocks_sigtrap(const char *tid)
{
	unsigned long blocked;
	char state;

	return mv_linux_task_stat(tid, &state, &blocked, NULL) && (blocked >> (SIGTRAP - 1) & 1);
}

/* Notes what thread tid, late, was doing, for the message. */
static void note_late(pid_t tid, char *state)
{
	char name[24], buf[256];
	size_t n;

	snprintf(name, sizeof name, "%d", (int)tid);
	if (!mv_linux_task_file(name, "syscall", buf, sizeof buf))
		strcpy(buf, "?");
	n = strcspn(buf, " \n");
	n = n < sizeof late_call - 1 ? n : sizeof late_call - 1;
	memcpy(late_call, buf, n);
	late_call[n] = 0;
	late_blocks = blocks_sigtrap(name);
	*state = task_state(name);
}

/* The futex word thread tid waits on (/proc's syscall file reads
 * "nr arg1 ..."): 0 if it is in another system call or none, 1 if it
 * is gone. */
static uintptr_t futex_of(const char *tid)
{
	char buf[256], *end;

	if (!mv_linux_task_file(tid, "syscall", buf, sizeof buf))
		return 1;
	/* no sscanf(): it may take the locale's lock */
	return strtoul(buf, &end, 10) == SYS_futex ? strtoul(end, NULL, 16) : 0;
}

/* Whether thread tid is parked (waiting on stop_gen) or gone. */
static int parked_or_gone(const char *tid)
{
	uintptr_t word = futex_of(tid);

	return word == 1 || word == (uintptr_t)&stop_gen;
}

/* The first signalled thread, other than self, not parked and for which
 * also wanted(), or 0. */
static pid_t unparked(pid_t self, int (*wanted)(const char *tid))
{
	char tid[24];

	for (size_t i = 0; i < n_signalled; i++) {
		if (signalled[i] == self)
			continue;
		snprintf(tid, sizeof tid, "%d", (int)signalled[i]);
		if (!parked_or_gone(tid) && (!wanted || wanted(tid)))
			return signalled[i];
	}
	return 0;
}

/* For the message: a thread that did not park, or 0. */
static pid_t laggard(pid_t self, char *state)
{
	pid_t tid = unparked(self, 0);

	*state = 0;
	if (tid)
		note_late(tid, state);
	return tid;
}

/* 4c: a thread that blocks SIGTRAP and sleeps in futex(), perhaps for a
 * lock that a parked thread holds.  (A thread in any other blocking call
 * will leave it without us: the stop waits for it.)  A parked thread
 * blocks SIGTRAP too, in its handler, and sleeps in futex() on stop_gen:
 * unparked() left it out, but it may have got there since, so that is
 * looked at again last. */
static int blocked_sleeping(const char *tid)
{
	uintptr_t word;

	return blocks_sigtrap(tid) && task_state(tid) == 'S' &&
	       (word = futex_of(tid)) > 1 && word != (uintptr_t)&stop_gen;
}

/* 4c: waits until thread tid no longer blocks SIGTRAP (or is gone), up
 * to deadline; 0 if it still does then. */
static int wait_unblocked(pid_t tid, long deadline, long pause_us)
{
	char name[24];

	snprintf(name, sizeof name, "%d", (int)tid);
	for (;;) {
		struct timespec pause = { 0, pause_us * 1000 };

		if (!blocks_sigtrap(name))
			return 1;
		if (mv_linux_now_ms() > deadline)
			return 0;
		nanosleep(&pause, NULL);
	}
}

static void release(uint32_t gen)
{
	__atomic_store_n(&parked, (uint64_t)(gen + 1) << 32, __ATOMIC_RELEASE);
	__atomic_store_n(&stop_gen, gen + 1, __ATOMIC_RELEASE);
	futex(&stop_gen, FUTEX_WAKE_PRIVATE, INT_MAX);
}

/* 4b: a parked thread that must not stay parked there, or 0.  Every
 * thread counted in writes its note right after; a note not there (yet,
 * or for want of room) counts as in the way. */
static const struct seen *in_the_way(int (*inside)(uintptr_t pc))
{
	static struct seen unknown;
	uint32_t n = (uint32_t)__atomic_load_n(&parked, __ATOMIC_ACQUIRE);
	uint32_t gen = __atomic_load_n(&stop_gen, __ATOMIC_ACQUIRE);

	if (n > cap_signalled)
		return &unknown;
	for (uint32_t i = 0; i < n; i++) {
		/* counted in, and about to write it (perhaps preempted) */
		for (int spin = 0; __atomic_load_n(&seen[i].gen, __ATOMIC_ACQUIRE) != gen; spin++) {
			if (spin > 1000)
				return &unknown;
			sched_yield();
		}
		if (seen[i].in_handler || inside(seen[i].pc))
			return &seen[i];
	}
	return 0;
}

/* Steps 1 to 4: 0 once every other thread is parked, or a negative errno
 * value with none parked: -ETIMEDOUT past deadline, -EINTR for a thread
 * that blocks SIGTRAP and sleeps (4c).  *late names a thread that did
 * not park. */
static int park_all(long deadline, pid_t *late, char *state)
{
	pid_t pid = getpid(), self = (pid_t)syscall(SYS_gettid);
	uint32_t gen = stop_gen + 1;
	long last_send, next_look = mv_linux_now_ms() + BLOCKED_MS, zombie = 0;
	int err;

	n_signalled = 0;
	__atomic_store_n(&parked, (uint64_t)gen << 32, __ATOMIC_RELEASE);
	__atomic_store_n(&stop_gen, gen, __ATOMIC_RELEASE);

	/* Parked threads neither leave nor exit before release(), so if the
	 * count read first equals the number of threads that can park read
	 * after it, every one of them is parked. */
	last_send = mv_linux_now_ms();
	for (int round = 0; ; round++) {
		long t = mv_linux_now_ms();
		int resend = t - last_send >= RESEND_MS;
		uint32_t count;

		if (resend)
			last_send = t;
		if ((err = stop_round(pid, self, resend, &zombie)))
			break;
		count = (uint32_t)__atomic_load_n(&parked, __ATOMIC_ACQUIRE);
		if (count == mv_linux_thread_count() - 1 - zombie)
			return 0;
		if (t > deadline) {
			err = -ETIMEDOUT;
			break;
		}
		if (t >= next_look) {
			next_look = t + BLOCKED_MS;
			if ((*late = unparked(self, blocked_sleeping))) {
				release(gen);
				return -EINTR;
			}
		}
		if (round > 10) {
			struct timespec pause = { 0, 200000 };
			nanosleep(&pause, NULL);
		} else {
			sched_yield();
		}
	}
	*late = err == -ETIMEDOUT ? laggard(self, state) : 0;
	release(gen);
	return err;
}

/* How long a stop may take: STOP_TIMEOUT_MS, or the environment's
 * MULTIVERSE_STOP_TIMEOUT_MS (1 to 600000), read once. */
static long stop_timeout_ms(void)
{
	static long ms;

	if (!ms) {
		const char *s = getenv("MULTIVERSE_STOP_TIMEOUT_MS");
		char *end;
		long v = s ? strtol(s, &end, 10) : 0;

		ms = s && *s && !*end && v >= 1 && v <= 600000 ? v : STOP_TIMEOUT_MS;
	}
	return ms;
}

int mv_world_stop(int (*inside)(uintptr_t pc))
{
	long threads = mv_linux_thread_count(), timeout = stop_timeout_ms();
	long deadline = mv_linux_now_ms() + timeout;
	const struct seen *busy = 0;
	struct seen was = { 0 };
	char state = 0;
	pid_t late = 0;
	int err;

	/* Room for every thread there is, and for as many again created
	 * while we stop them; allocated before anyone is parked. */
	if (threads < 0)
		return mv_error(-EIO, "cannot stop the other threads: /proc/self/status "
				"is not readable; nothing was written");
	if ((size_t)threads * 2 + 64 > cap_signalled) {
		/* doubling at least: the arrays outgrown, kept, add up to
		 * less than the last */
		size_t cap = (size_t)threads * 2 + 64 > cap_signalled * 2 ?
			     (size_t)threads * 2 + 64 : cap_signalled * 2;
		pid_t *s = malloc(cap * sizeof *s);
		struct seen *w = calloc(cap, sizeof *w);   /* no stale gen */
		if (!s || !w) {
			free(s);
			free(w);
			return mv_error(-ENOMEM, "out of memory stopping the other "
					"threads; nothing was written");
		}
		free(signalled);
		signalled = s;
		seen = w;
		cap_signalled = cap;
	}
	mv_report_hold();
	for (long pause_us = 50; ; pause_us = pause_us < 5000 ? pause_us * 2 : 10000) {
		/* each round may take the whole time to park everyone; the
		 * rounds together may take it to find no one in the way */
		err = park_all(mv_linux_now_ms() + timeout, &late, &state);
		if (err == -EINTR) {
			/* 4c: until it has what it waited for, within the
			 * time of the whole stop */
			if (wait_unblocked(late, deadline, pause_us) && mv_linux_now_ms() <= deadline) {
				struct timespec pause = { 0, pause_us * 1000 };
				nanosleep(&pause, NULL);
				continue;
			}
			note_late(late, &state);
			err = -ETIMEDOUT;
			break;
		}
		if (err == -ETIMEDOUT && was.tid && (!late || late == was.tid))
			err = -EBUSY;   /* the time went waiting for that thread */
		if (err || !inside || !(busy = in_the_way(inside)))
			break;
		/* 4b: let everyone go on a moment, and stop them again */
		was = *busy;
		release(stop_gen);
		for (int left = 0; !left && mv_linux_now_ms() <= deadline; ) {
			struct timespec pause = { 0, pause_us * 1000 };
			left = !was.gen || __atomic_load_n(&busy->left, __ATOMIC_ACQUIRE) == was.gen;
			nanosleep(&pause, NULL);
		}
		if (mv_linux_now_ms() > deadline) {
			err = -EBUSY;
			break;
		}
	}
	if (!err)
		return 0;
	mv_report_release();
	if (err == -EBUSY)
		return mv_error(-EBUSY, "cannot change inlined code: thread %d %s for "
				"%d ms; nothing was written", (int)was.tid, was.in_handler ?
				"stayed in a signal handler (or blocks signal 64, as a "
				"handler left by longjmp() does)" : "kept running that code",
				(int)timeout);
	if (err == -ETIMEDOUT)
		return mv_error(-EBUSY, "cannot change an instruction that %s does not "
				"let running threads see change: %s%.0d did not stop "
				"within %d ms (%s%s%s); nothing was written", MV_ARCH_NAME,
				late ? "thread " : "a thread", (int)late, (int)timeout,
				state == 'T' || state == 't' ? "it is stopped, by a signal "
				"or a debugger" : state == 'D' ? "it is in an uninterruptible "
				"wait, such as vfork() or disk I/O" : late && late_blocks ?
				"it blocks the signal that stops it" : "it did not take the "
				"signal that stops it", late ? "; system call: " : "",
				late ? late_call : "");
	if (err == -EAGAIN)
		return mv_error(-EAGAIN, "cannot stop the other threads: new ones keep "
				"being created; nothing was written");
	if (err == -ECANCELED)
		return mv_error(-EIO, "cannot stop the other threads: injected fault; "
				"nothing was written");
	return mv_error(err, "cannot stop the other threads: %s; nothing was written",
			strerror(-err));
}

void mv_world_resume(void)
{
	release(stop_gen);
	mv_report_release();
}
