/* SPDX-License-Identifier: MIT */
/*
 * The process-wide pieces of the Linux user-space platform: the lock of
 * the API, fork(), and messages on stderr.
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

__attribute__((constructor)) static void hook_fork(void)
{
	pthread_atfork(mv_lock, mv_unlock, fork_child);
}

void mv_print(const char *msg)
{
	fprintf(stderr, "multiverse: %s\n", msg);
}

static void print_to_file(void *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(ctx, fmt, ap);
	va_end(ap);
}

MV_API void multiverse_dump_info(FILE *out)
{
	struct mv_printer p = { print_to_file, out ? out : stderr };

	mv_dump(&p);
}

long mv_linux_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}
