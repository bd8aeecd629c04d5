/* SPDX-License-Identifier: MIT */
/*
 * The process-wide pieces of the Linux user-space platform: the lock of
 * the API, fork(), and messages on standard error.
 *
 * Messages are written to file descriptor 2, not through stderr: a C
 * library with the runtime in it (musl's libc.so) would otherwise look
 * the symbol stderr up at every start, for a program that may define it
 * (a copy relocation), to print nothing.
 */
#include <pthread.h>

#include "internal.h"
#include "linux-user.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void mv_lock(void)
{
	pthread_mutex_lock(&lock);
}

void mv_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

/*
 * fork() waits for an API call in progress: a child must not inherit the
 * lock held by a thread it does not have, nor a batch half written (its
 * copy of the text would keep the breakpoints).  vfork() and
 * posix_spawn() children share our memory and run no API calls.
 */
static void fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	lock = fresh;
	mv_trap_tables_forked();
}

#ifdef MV_IN_LIBC
/* In a C library, its fork() calls this itself, as a handler registered
 * first: -1 before, 0 in the parent, 1 in the child (docs/libc.md).
 * pthread_atfork() would start the allocator in every process. */
void __multiverse_fork(int who)
{
	if (who < 0)
		mv_lock();
	else if (who == 0)
		mv_unlock();
	else
		fork_child();
}
#else
__attribute__((constructor)) static void hook_fork(void)
{
	pthread_atfork(mv_lock, mv_unlock, fork_child);
}
#endif

void mv_print(const char *msg)
{
	dprintf(2, "multiverse: %s\n", msg);
}

static void print_to_file(void *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(ctx, fmt, ap);
	va_end(ap);
}

static void print_to_fd2(void *ctx, const char *fmt, ...)
{
	va_list ap;

	(void)ctx;
	va_start(ap, fmt);
	vdprintf(2, fmt, ap);
	va_end(ap);
}

MV_API void multiverse_dump_info(FILE *out)
{
	struct mv_printer p = { out ? print_to_file : print_to_fd2, out };

	mv_dump(&p);
}

long mv_linux_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}
