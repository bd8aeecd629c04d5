/* SPDX-License-Identifier: MIT */
/*
 * Linux user space: the breakpoint trap of the live-patching protocol
 * (poke.c), and keeping it deliverable in every thread.
 *
 * A thread that executes one of our int3 breakpoints gets a synchronous
 * SIGTRAP.  The kernel cannot hold such a signal back: if the thread
 * blocks SIGTRAP, or SIGTRAP is ignored, it resets SIGTRAP to its default
 * action for the whole process and kills it.  So the protocol is only
 * safe while, in every thread that may run patched code,
 *
 *   (a) SIGTRAP is not blocked: not in the thread's mask, and not in the
 *       mask of any signal handler that may interrupt it; and
 *   (b) SIGTRAP's action is our handler.
 *
 * The runtime keeps this true where it can and checks it where it cannot:
 *
 *   - sigprocmask() and pthread_sigmask() are interposed so that they
 *     never block SIGTRAP, nor do the masks a thread waits under in
 *     sigsuspend(), ppoll() (and the fortified __ppoll_chk()), pselect(),
 *     epoll_pwait() and epoll_pwait2() (the handler that ends the wait
 *     runs under that mask); sigaction() is interposed so that no
 *     handler's mask holds SIGTRAP, and so are signal(), bsd_signal(),
 *     sysv_signal() and sigset(), which go around it.  A synchronous trap cannot be blocked anyway; the only
 *     effect is that a SIGTRAP sent with kill() may reach any thread.
 *   - Once our handler is installed, sigaction() on SIGTRAP reads and
 *     writes the application's action, which our handler chains to for
 *     every trap that is not ours; ours stays installed.
 *   - Our handler blocks asynchronous signals while it runs (one that
 *     jumped out of it would leave it counted busy for good), and gives
 *     the application's handler, when it chains to one, the mask the
 *     kernel would have; so that handler may itself meet a breakpoint.
 *   - What bypasses libc (raw system calls, setcontext() with a mask made
 *     by hand, statically linked programs whose libc wins the symbols) is
 *     caught by mv_trap_ready() before a live batch writes anything: it
 *     reads every thread's blocked set from /proc/self/task/ * /stat
 *     and every handler's mask, reinstalls our handler if it was
 *     replaced, and refuses the batch if a thread or a handler still
 *     blocks SIGTRAP.
 *
 * What remains, documented in docs/patching.md: a thread that blocks
 * SIGTRAP by a raw system call during the few microseconds in which a
 * batch's breakpoints are in the text.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <ucontext.h>
#include <unistd.h>

#include "internal.h"
#include "linux-user.h"
#if defined(__x86_64__)
#include "signal-x86_64.h"
#elif defined(__aarch64__)
#include "signal-aarch64.h"
#endif

/* --- the next definitions of the interposed functions ------------------ */

#ifdef MV_IN_LIBC
static const int in_libc = 1;
#else
static const int in_libc = 0;
#endif

typedef int sigmask_fn(int, const sigset_t *, sigset_t *);
typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);

/*
 * Found with dlsym(RTLD_NEXT), in a constructor because dlsym() is not
 * async-signal-safe and these functions may be called from handlers.  A
 * statically linked program has no next definition, nor has the runtime
 * built into the C library (-DMV_IN_LIBC): then the masks are set by the
 * system call, and the action through the C library's internal name for
 * sigaction() if the link has it (glibc; musl's only when its sigaction.o
 * came in for another of its names, since a weak reference pulls
 * nothing), else by the system call too.
 */
static sigmask_fn *next_pthread_sigmask, *next_sigprocmask;
static sigaction_fn *next_sigaction;
static int (*next_sigsuspend)(const sigset_t *);
static int (*next_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
			 const sigset_t *);
static int (*next_pselect)(int, fd_set *, fd_set *, fd_set *,
			   const struct timespec *, const sigset_t *);
static int (*next_epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
static int (*next_epoll_pwait2)(int, struct epoll_event *, int,
				const struct timespec *, const sigset_t *);
static int (*next_ppoll_chk)(struct pollfd *, nfds_t, const struct timespec *,
			     const sigset_t *, size_t);
static sighandler_t (*next_signal)(int, sighandler_t);
static sighandler_t (*next_sysv_signal)(int, sighandler_t);
static sighandler_t (*next_sigset)(int, sighandler_t);
extern int __sigaction(int, const struct sigaction *, struct sigaction *)
	__attribute__((weak));
/* the linker defines it in a module with dynamic linking only */
extern const char _DYNAMIC[] __attribute__((weak, visibility("hidden")));

__attribute__((constructor(101))) static void find_next(void)
{
	/* Where dlsym() can find nothing, it would only format an error
	 * message per name: some 100,000 instructions in every static
	 * program's start-up with musl, 50,000 in a dynamic one's whose
	 * libc.so holds the runtime. */
	if (!_DYNAMIC || in_libc) {
		next_sigaction = __sigaction;
		return;
	}
	next_pthread_sigmask = (sigmask_fn *)dlsym(RTLD_NEXT, "pthread_sigmask");
	next_sigprocmask = (sigmask_fn *)dlsym(RTLD_NEXT, "sigprocmask");
	next_sigaction = (sigaction_fn *)dlsym(RTLD_NEXT, "sigaction");
	if (!next_sigaction)
		next_sigaction = __sigaction;
	*(void **)&next_sigsuspend = dlsym(RTLD_NEXT, "sigsuspend");
	*(void **)&next_ppoll = dlsym(RTLD_NEXT, "ppoll");
	*(void **)&next_pselect = dlsym(RTLD_NEXT, "pselect");
	*(void **)&next_epoll_pwait = dlsym(RTLD_NEXT, "epoll_pwait");
	*(void **)&next_epoll_pwait2 = dlsym(RTLD_NEXT, "epoll_pwait2");
	*(void **)&next_ppoll_chk = dlsym(RTLD_NEXT, "__ppoll_chk");
	*(void **)&next_signal = dlsym(RTLD_NEXT, "signal");
	*(void **)&next_sysv_signal = dlsym(RTLD_NEXT, "sysv_signal");
	*(void **)&next_sigset = dlsym(RTLD_NEXT, "sigset");
}

/* The C library reserves the signals from 32 to SIGRTMIN for itself and
 * does not let applications block them; neither do we. */
static int raw_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	if (set && how != SIG_UNBLOCK) {
		copy = *set;
		for (int sig = 32; sig < SIGRTMIN; sig++)
			sigdelset(&copy, sig);
		set = &copy;
	}
	return syscall(SYS_rt_sigprocmask, how, set, old, 8) ? errno : 0;
}

static int real_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (next_pthread_sigmask)
		return next_pthread_sigmask(how, set, old);
	return raw_sigmask(how, set, old);
}

static int real_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int err;

	if (next_sigprocmask)
		return next_sigprocmask(how, set, old);
	err = raw_sigmask(how, set, old);
	if (err)
		errno = err;
	return err ? -1 : 0;
}

/* The kernel's struct sigaction on x86-64 and AArch64; the C library's
 * has a larger mask and may order its fields otherwise. */
struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};
#define KERNEL_SA_RESTORER 0x04000000       /* the same on both */

/* The C library's sigaction() keeps its own bookkeeping, which this one
 * cannot (musl: EINTR from futex waits, handlers reset in a posix_spawn()
 * child; README, "musl"); it keeps at least the C library's signals, from
 * 32 to SIGRTMIN, out of the application's hands, as both libraries do. */
static int raw_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	struct kernel_sigaction k = { 0 }, ko;

	if (sig >= 32 && sig < SIGRTMIN) {
		errno = EINVAL;
		return -1;
	}
	if (sa) {
		k.handler = (void *)sa->sa_handler;
		k.flags = (unsigned)sa->sa_flags;
		memcpy(&k.mask, &sa->sa_mask, sizeof k.mask);
		if (sa->sa_flags & KERNEL_SA_RESTORER) {
			k.restorer = sa->sa_restorer;    /* an action read back */
		} else {
#ifdef MV_ARCH_SIGRETURN
			k.flags |= KERNEL_SA_RESTORER;
			k.restorer = MV_ARCH_SIGRETURN;
#endif
		}
	}
	if (syscall(SYS_rt_sigaction, sig, sa ? &k : NULL, old ? &ko : NULL, sizeof k.mask))
		return -1;
	if (old) {
		memset(old, 0, sizeof *old);
		old->sa_handler = (sighandler_t)ko.handler;
		old->sa_flags = (int)ko.flags;
		old->sa_restorer = ko.restorer;
		memcpy(&old->sa_mask, &ko.mask, sizeof ko.mask);
	}
	return 0;
}

static int real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	if (!next_sigaction)
		find_next();
	if (next_sigaction)
		return next_sigaction(sig, sa, old);
	return raw_sigaction(sig, sa, old);
}

/* --- the handler ------------------------------------------------------- */

/*
 * The application's SIGTRAP action while ours is installed.  It is read
 * by the handler and written by sigaction(), both possibly from signal
 * handlers, so it is published whole: one of two slots, switched by an
 * atomic index.
 */
static struct sigaction app_action[2];
static int app_slot;
static int installed;

static void set_app_action(const struct sigaction *sa)
{
	int next = !__atomic_load_n(&app_slot, __ATOMIC_ACQUIRE);

	app_action[next] = *sa;
	__atomic_store_n(&app_slot, next, __ATOMIC_RELEASE);
}

static struct sigaction get_app_action(void)
{
	return app_action[__atomic_load_n(&app_slot, __ATOMIC_ACQUIRE)];
}

/* Does what the kernel would have done with a trap that is not ours,
 * had the application's action been installed. */
static void chain(int sig, siginfo_t *si, void *ctx)
{
	struct sigaction c = get_app_action();
	/* The kernel never ignores a trap the thread caused itself. */
	int synchronous = si->si_code > 0;

	if (c.sa_flags & SA_RESETHAND) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		set_app_action(&dfl);
	}
	/* The kernel ignores SA_SIGINFO for SIG_DFL and SIG_IGN. */
	if (c.sa_handler == SIG_DFL || (c.sa_handler == SIG_IGN && synchronous)) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		real_sigaction(sig, &dfl, NULL);
		raise(sig);     /* delivered, fatally, when we return */
	} else if (c.sa_handler != SIG_IGN) {
		/* The application's handler runs under the mask the kernel
		 * would have given it, not ours; SIGTRAP stays open. */
		sigset_t mask = ((ucontext_t *)ctx)->uc_sigmask;

		sigorset(&mask, &mask, &c.sa_mask);
		sigdelset(&mask, SIGTRAP);
		raw_sigmask(SIG_SETMASK, &mask, NULL);
		if (c.sa_flags & SA_SIGINFO)
			c.sa_sigaction(sig, si, ctx);
		else
			c.sa_handler(sig);
	}
}

/* A breakpoint trap is ours if its address is (trap-tables.c); a queued
 * SIGTRAP may be mv_world_stop()'s (stop.c). */
static void handle_sigtrap(int sig, siginfo_t *si, void *ctx)
{
	struct mv_cpu cpu;

	mv_arch_cpu_load(&cpu, ctx);
	if (!mv_arch_is_breakpoint(si)) {
		uintptr_t ip = cpu.ip;

		mv_poke_lost_trap(&cpu);
		if (cpu.ip != ip)
			mv_arch_cpu_store(ctx, &cpu);
	}
	if (mv_linux_park(si, cpu.ip, sigismember(&((ucontext_t *)ctx)->uc_sigmask,
						   MV_MARK_SIGNAL)))
		return;
	if (mv_arch_is_breakpoint(si)) {
		if (mv_poke_trap(&cpu)) {
			mv_arch_cpu_store(ctx, &cpu);
			return;
		}
	}
	chain(sig, si, ctx);
}

/* The interrupted code keeps its errno: parking waits on a futex, whose
 * EAGAIN or EINTR would otherwise show through. */
static void on_sigtrap(int sig, siginfo_t *si, void *ctx)
{
	int saved_errno = errno;

	handle_sigtrap(sig, si, ctx);
	errno = saved_errno;
}

static int is_ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_sigtrap;
}

/*
 * Installs our handler, keeping whatever was there as the application's
 * action.  If the application replaced ours behind sigaction()'s back
 * (a raw system call), its action is adopted the same way.
 */
static int trap_install(void)
{
	struct sigaction cur, sa;

	if (real_sigaction(SIGTRAP, NULL, &cur))
		return mv_error(-errno, "sigaction(SIGTRAP): %s", strerror(errno));
	if (is_ours(&cur))
		return 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigtrap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	/* No asynchronous signal may interrupt the handler: one whose own
	 * handler jumps away (siglongjmp) would leave mv_poke_trap()'s
	 * count of busy handlers raised for good, and the next API call
	 * would wait for it forever.  Nor may mv_world_stop()'s SIGTRAP: a
	 * thread parked while counted busy would keep the stopping thread
	 * waiting for it.  Our handler never runs patched code, so it never
	 * meets a breakpoint while SIGTRAP is blocked; chain() opens SIGTRAP
	 * again for the application's handler.  Faults stay open, as the
	 * kernel forces them anyway. */
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	sigdelset(&sa.sa_mask, SIGILL);
	sigdelset(&sa.sa_mask, SIGFPE);
	/* Not the in-handler mark: a thread in our handler runs no
	 * application code (mv_trap_thread_marked() must not count it). */
	sigdelset(&sa.sa_mask, MV_MARK_SIGNAL);
	sigdelset(&cur.sa_mask, SIGTRAP);
	if (cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN)
		sigaddset(&cur.sa_mask, MV_MARK_SIGNAL);
	set_app_action(&cur);
	if (real_sigaction(SIGTRAP, &sa, NULL))
		return mv_error(-errno, "sigaction(SIGTRAP): %s", strerror(errno));
	__atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
	return 0;
}

/* --- the interposed functions ------------------------------------------ */

/* Masks never hold SIGTRAP.  The in-handler mark (linux-user.h) is the
 * runtime's alone: the application's calls neither set nor clear it, so
 * a mask set inside a handler (saved and restored, or filled and
 * unblocked) keeps it, and one set outside never holds it. */
static const sigset_t *without_trap(int how, const sigset_t *set, sigset_t *copy)
{
	sigset_t cur;

	if (!set)
		return set;
	*copy = *set;
	switch (how) {
	case SIG_UNBLOCK:
		sigdelset(copy, MV_MARK_SIGNAL);
		return copy;
	case SIG_SETMASK:
		sigdelset(copy, SIGTRAP);
		sigdelset(copy, MV_MARK_SIGNAL);
		if (!raw_sigmask(SIG_BLOCK, NULL, &cur) && sigismember(&cur, MV_MARK_SIGNAL))
			sigaddset(copy, MV_MARK_SIGNAL);
		return copy;
	default:
		sigdelset(copy, SIGTRAP);
		sigdelset(copy, MV_MARK_SIGNAL);
		return copy;
	}
}

static int is_handler(const struct sigaction *sa)
{
	return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

__attribute__((weak)) MV_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	return real_pthread_sigmask(how, without_trap(how, set, &copy), old);
}

__attribute__((weak)) MV_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	return real_sigprocmask(how, without_trap(how, set, &copy), old);
}

__attribute__((weak)) MV_API int sigaction(int sig, const struct sigaction *sa,
					   struct sigaction *old)
{
	struct sigaction copy;

	if (sa) {
		copy = *sa;
		sigdelset(&copy.sa_mask, SIGTRAP);
		if (is_handler(&copy) && sig != MV_MARK_SIGNAL)
			sigaddset(&copy.sa_mask, MV_MARK_SIGNAL);
		sa = &copy;
	}
	if (sig == SIGTRAP && __atomic_load_n(&installed, __ATOMIC_ACQUIRE)) {
		if (old)
			*old = get_app_action();
		if (sa)
			set_app_action(sa);
		return 0;
	}
	return real_sigaction(sig, sa, old);
}

/* The waits with a mask of their own: with no next definition (a static
 * link), the system call, whose kernel mask is 8 bytes. */

__attribute__((weak)) MV_API int sigsuspend(const sigset_t *set)
{
	sigset_t copy;

	set = without_trap(SIG_SETMASK, set, &copy);
	if (next_sigsuspend)
		return next_sigsuspend(set);
	return syscall(SYS_rt_sigsuspend, set, 8);
}

__attribute__((weak)) MV_API int ppoll(struct pollfd *fds, nfds_t n,
				       const struct timespec *timeout,
				       const sigset_t *set)
{
	struct timespec left, *t = NULL;
	sigset_t copy;

	set = without_trap(SIG_SETMASK, set, &copy);
	if (next_ppoll)
		return next_ppoll(fds, n, timeout, set);
	if (timeout)
		left = *timeout, t = &left;     /* the kernel writes back */
	return syscall(SYS_ppoll, fds, n, t, set, 8);
}

__attribute__((weak)) MV_API int pselect(int n, fd_set *r, fd_set *w, fd_set *e,
					 const struct timespec *timeout,
					 const sigset_t *set)
{
	struct timespec left, *t = NULL;
	struct { const sigset_t *set; size_t size; } mask;
	sigset_t copy;

	set = without_trap(SIG_SETMASK, set, &copy);
	if (next_pselect)
		return next_pselect(n, r, w, e, timeout, set);
	if (timeout)
		left = *timeout, t = &left;
	mask.set = set;
	mask.size = 8;
	return syscall(SYS_pselect6, n, r, w, e, t, set ? &mask : NULL);
}

__attribute__((weak)) MV_API int epoll_pwait(int fd, struct epoll_event *ev, int max,
					     int timeout, const sigset_t *set)
{
	sigset_t copy;

	set = without_trap(SIG_SETMASK, set, &copy);
	if (next_epoll_pwait)
		return next_epoll_pwait(fd, ev, max, timeout, set);
	return syscall(SYS_epoll_pwait, fd, ev, max, timeout, set, 8);
}

__attribute__((weak)) MV_API int epoll_pwait2(int fd, struct epoll_event *ev, int max,
					      const struct timespec *timeout,
					      const sigset_t *set)
{
	sigset_t copy;

	set = without_trap(SIG_SETMASK, set, &copy);
	if (next_epoll_pwait2)
		return next_epoll_pwait2(fd, ev, max, timeout, set);
	return syscall(SYS_epoll_pwait2, fd, ev, max, timeout, set, 8);
}

/* What a fortified ppoll() calls when the count is not a constant. */
__attribute__((weak)) MV_API int __ppoll_chk(struct pollfd *fds, nfds_t n,
					     const struct timespec *timeout,
					     const sigset_t *set, size_t fds_len)
{
	sigset_t copy;

	set = without_trap(SIG_SETMASK, set, &copy);
	if (next_ppoll_chk)
		return next_ppoll_chk(fds, n, timeout, set, fds_len);
	if (fds_len / sizeof *fds < n)
		abort();        /* the buffer overflow the check exists for */
	return ppoll(fds, n, timeout, set);
}

/*
 * The old interfaces to a signal's action go through the C library's
 * internal sigaction(), not ours: for SIGTRAP they must set the
 * application's action instead of replacing our handler, and SIG_HOLD
 * must not block it.  Other signals go to the next definition; in a
 * static link, which has none, through our sigaction() with the same
 * semantics.
 */
static sighandler_t set_action(int sig, sighandler_t handler, int flags)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	if (!(flags & SA_NODEFER))
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}

/* The C library installed sig's action itself: its handler gets the
 * in-handler mark now (a signal that arrives in between runs the handler
 * without it, which only a stop at that moment could mind). */
static sighandler_t mark_handler(int sig, sighandler_t prev)
{
	struct sigaction sa;

	if (prev != SIG_ERR && sig != MV_MARK_SIGNAL && !real_sigaction(sig, NULL, &sa) &&
	    is_handler(&sa) && !sigismember(&sa.sa_mask, MV_MARK_SIGNAL)) {
		sigaddset(&sa.sa_mask, MV_MARK_SIGNAL);
		real_sigaction(sig, &sa, NULL);
	}
	return prev;
}

__attribute__((weak)) MV_API sighandler_t signal(int sig, sighandler_t handler)
{
	if (sig != SIGTRAP && next_signal)
		return mark_handler(sig, next_signal(sig, handler));
	return set_action(sig, handler, SA_RESTART);
}

__attribute__((weak)) MV_API sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return signal(sig, handler);
}

__attribute__((weak)) MV_API sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	if (sig != SIGTRAP && next_sysv_signal)
		return mark_handler(sig, next_sysv_signal(sig, handler));
	return set_action(sig, handler, SA_RESETHAND | SA_NODEFER);
}

__attribute__((weak)) MV_API sighandler_t sigset(int sig, sighandler_t handler)
{
	struct sigaction old;
	sighandler_t prev;
	sigset_t one;

	if (sig != SIGTRAP && next_sigset)
		return mark_handler(sig, next_sigset(sig, handler));
	sigemptyset(&one);
	sigaddset(&one, sig);
	if (handler == SIG_HOLD) {      /* our sigprocmask() keeps SIGTRAP open */
		if (sigaction(sig, NULL, &old) || sigprocmask(SIG_BLOCK, &one, NULL))
			return SIG_ERR;
		return old.sa_handler;
	}
	prev = set_action(sig, handler, 0);
	if (prev != SIG_ERR)
		sigprocmask(SIG_UNBLOCK, &one, NULL);
	return prev;
}

/* --- the check before a live batch ------------------------------------- */

/*
 * The C library blocks every signal, and runs none of our patched code,
 * around clone(), exec and thread exit: pthread_create() does, and
 * posix_spawn() until its child has exec'd.  A thread inside one of
 * these system calls is in such a window.
 */
static int in_libc_window(const char *tid)
{
	static const long calls[] = { SYS_clone, SYS_clone3, SYS_execve,
				      SYS_exit, SYS_exit_group,
#ifdef SYS_vfork        /* not on AArch64, where vfork() is a clone() */
				      SYS_vfork,
#endif
	};
	char buf[256];
	long nr;

	if (!mv_linux_task_file(tid, "syscall", buf, sizeof buf) || buf[0] == 'r')
		return 0;       /* gone, or running user code */
	nr = strtol(buf, NULL, 10);
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (nr == calls[i])
			return 1;
	return 0;
}

/* A thread that has exited, but whose task stays until the others exit:
 * a main thread that called pthread_exit(), which musl leaves with every
 * signal blocked.  It runs no code again. */
static int status_exited(const char *status)
{
	const char *p = strstr(status, "\nState:");

	if (!p)
		return 0;
	p += 7;
	p += strspn(p, " \t");
	return *p == 'Z' || *p == 'X';
}

/* 1 if thread tid blocks SIGTRAP outside a window of the C library's,
 * 0 if not, if it is gone, or if it has exited (see status_exited()).
 * With caught, the signals 1 to 31 with a handler, if its line says. */
static int thread_blocks_trap(const char *tid, unsigned long *caught)
{
	unsigned long blocked;
	char state;

	return mv_linux_task_stat(tid, &state, &blocked, caught) && (blocked >> (SIGTRAP - 1) & 1) &&
	       state != 'Z' && state != 'X' && !in_libc_window(tid);
}

/* The same for the calling thread, from its mask itself: its /proc file
 * would cost microseconds to format, and it is in no window. */
static int self_blocks_trap(void)
{
	sigset_t cur;

	return !raw_sigmask(SIG_BLOCK, NULL, &cur) && sigismember(&cur, SIGTRAP) == 1;
}

/* The nanoseconds thread tid has run on a CPU (schedstat), or 0 or -1
 * if the kernel does not say. */
static long long thread_run_time(const char *tid)
{
	char buf[128];

	return mv_linux_task_file(tid, "schedstat", buf, sizeof buf) ?
	       strtoll(buf, NULL, 10) : -1;
}

#define MAX_SUSPECTS 16
#define LOOKS 50
#define LOOK_DEADLINE_MS 5000

struct suspect {
	char tid[24];
	long long ran;          /* thread_run_time() at the last look */
	int looks;              /* looks that found SIGTRAP still blocked */
};

/*
 * Finding a thread that blocks SIGTRAP for good.  Besides the windows
 * in_libc_window() knows, the C library blocks every signal for a few
 * instructions around them, so a
 * thread counts only if it blocks SIGTRAP at LOOKS looks, spread over at
 * least 100 ms.  A look counts only if the thread ran since the last
 * one, or is not runnable (it waits in a system call): a thread that the
 * scheduler starves, as on a loaded machine, may sit in those few
 * instructions for long.  5 s without such looks is the hang guard.
 * The first look is list_suspects(), which also learns which signals
 * have handlers; watch_suspects() takes the others.
 */

/* The threads that block SIGTRAP at a first look, into s; -errno if the
 * threads cannot be listed.  Into *caught it ORs the signals 1 to 31
 * with a handler from each thread's line that has ours, for SIGTRAP,
 * among them (one without it was read from a thread on its way out). */
static int list_suspects(struct suspect *s, unsigned long *caught)
{
	int n = 0;
	char self[24];
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return -errno;
	snprintf(self, sizeof self, "%ld", (long)syscall(SYS_gettid));
	while ((e = readdir(d)) && n < MAX_SUSPECTS) {
		unsigned long c = 0;

		if (e->d_name[0] != '.' && strlen(e->d_name) < sizeof s[0].tid &&
		    (strcmp(e->d_name, self) ? thread_blocks_trap(e->d_name, &c) : self_blocks_trap())) {
			strcpy(s[n].tid, e->d_name);
			s[n].ran = thread_run_time(e->d_name);
			s[n++].looks = 1;
		}
		if (c >> (SIGTRAP - 1) & 1)
			*caught |= c;
	}
	closedir(d);
	return n;
}

/* The thread among the n suspects in s that blocks SIGTRAP for good,
 * or 0. */
static long watch_suspects(struct suspect *s, int n)
{
	struct timespec pause = { 0, 2000000 };
	long deadline = mv_linux_now_ms() + LOOK_DEADLINE_MS;

	while (n) {
		int most = 0;

		for (int k = 1; k < n; k++)
			if (s[k].looks > s[most].looks)
				most = k;
		if (s[most].looks >= LOOKS || mv_linux_now_ms() > deadline)
			return strtol(s[most].tid, NULL, 10);
		nanosleep(&pause, NULL);
		for (int k = 0; k < n; ) {
			long long ran = thread_run_time(s[k].tid);
			unsigned long blocked;
			char state;

			if (!thread_blocks_trap(s[k].tid, NULL)) {
				s[k] = s[--n];
				continue;
			}
			if (ran <= 0 || ran != s[k].ran ||
			    !mv_linux_task_stat(s[k].tid, &state, &blocked, NULL) || state != 'R')
				s[k].looks++;
			s[k++].ran = ran;
		}
	}
	return 0;
}

/* Whether some other thread blocks the in-handler mark now: it runs a
 * signal handler, or a mask was set behind our back (the raw system
 * call, or a handler left by longjmp()).  One look, no waiting: a thread
 * in a handler now makes the caller do without copies this once. */
int mv_trap_thread_marked(void)
{
	char buf[2048];
	pid_t self = (pid_t)syscall(SYS_gettid);
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = 0;

	if (!d)
		return 1;
	while (!found && (e = readdir(d))) {
		const char *p;

		if (e->d_name[0] == '.' || strtol(e->d_name, NULL, 10) == self ||
		    !mv_linux_task_file(e->d_name, "status", buf, sizeof buf) ||
		    status_exited(buf) || !(p = strstr(buf, "\nSigBlk:")))
			continue;
		found = (strtoull(p + 8, NULL, 16) >> (MV_MARK_SIGNAL - 1)) & 1;
	}
	closedir(d);
	return found;
}

/* The first signal whose handler blocks SIGTRAP while it runs, or 0.
 * caught, if not 0, has the signals 1 to 31 with a handler (from the
 * threads' stat lines): the others are not asked, each a system call. */
static int handler_blocking_trap(unsigned long caught)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sig == SIGTRAP || sig == SIGKILL || sig == SIGSTOP ||
		    (sig < 32 && caught && !(caught >> (sig - 1) & 1)) ||
		    real_sigaction(sig, NULL, &sa))
			continue;
		if (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN &&
		    sigismember(&sa.sa_mask, SIGTRAP))
			return sig;
	}
	return 0;
}

int mv_trap_install(void)
{
	return trap_install();
}

int mv_trap_mark_handlers(void)
{
	int first = 0;

	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sig == SIGKILL || sig == SIGSTOP || sig == MV_MARK_SIGNAL ||
		    real_sigaction(sig, NULL, &sa) || !is_handler(&sa) ||
		    sigismember(&sa.sa_mask, MV_MARK_SIGNAL) ||
		    (sig == SIGTRAP && is_ours(&sa)))
			continue;
		sigaddset(&sa.sa_mask, MV_MARK_SIGNAL);
		real_sigaction(sig, &sa, NULL);
		first = first ? first : sig;
	}
	return first;
}

/* The caller is the only thread and holds the runtime's lock: one saved
 * mask is enough.  SIGTRAP stays deliverable for the breakpoints. */
static sigset_t held;

int mv_signals_hold(void)
{
	sigset_t all;
	int err;

	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	err = raw_sigmask(SIG_BLOCK, &all, &held);
	return err ? mv_error(-err, "rt_sigprocmask: %s; nothing was written",
			      strerror(err)) : 0;
}

void mv_signals_release(void)
{
	raw_sigmask(SIG_SETMASK, &held, NULL);
}

int mv_trap_ready(void)
{
	struct suspect s[MAX_SUSPECTS];
	unsigned long caught = 0;
	long tid;
	int n, sig, err;

	err = trap_install();
	if (err)
		return err;
	n = list_suspects(s, &caught);
	sig = handler_blocking_trap(caught);
	if (sig)
		return mv_error(-EDEADLK, "cannot patch code while other threads run: "
				"the handler of signal %d (%s) blocks SIGTRAP, so a thread "
				"running it would be killed by a breakpoint; it was installed "
				"without going through sigaction(); nothing was written",
				sig, strsignal(sig));
	tid = n < 0 ? n : watch_suspects(s, n);
	if (tid < 0)
		return mv_error((int)tid, "cannot patch code while other threads run: "
				"/proc/self/task: %s; nothing was written", strerror((int)-tid));
	if (tid > 0)
		return mv_error(-EDEADLK, "cannot patch code while other threads run: "
				"thread %ld blocks SIGTRAP (set without going through "
				"sigprocmask() or pthread_sigmask()), so a breakpoint would "
				"kill the process; nothing was written", tid);
	return 0;
}
