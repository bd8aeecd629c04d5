/* SPDX-License-Identifier: MIT */
/*
 * Reading a thread's state and blocked signals from /proc's stat file
 * (runtime/platform/linux-user/text.c, mv_linux_task_stat()), which the
 * check before a live batch and the stop of other threads rely on: a
 * thread whose name holds ") " and digits, blocking SIGTRAP and SIGUSR1
 * by the raw system call and sleeping in read(), must read as 'S' with
 * those two blocked and no other; the calling thread as 'R' with none;
 * a thread that does not exist as gone.  The signals with a handler,
 * which the check before a live batch asks about alone, are the
 * process's: SIGUSR2 and SIGRTMIN+1 have one, SIGHUP is ignored, and
 * each thread's line must list SIGUSR2 alone (the line holds 1 to 31).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "linux-user.h"

#define CHECK(c) do { if (!(c)) { \
	printf("task_stat: line %d: %s\n", __LINE__, #c); exit(1); } } while (0)

static int pipe_fd[2];

static void on_signal(int sig)
{
	(void)sig;
}
static volatile pid_t sleeper_tid;

static void *sleeper(void *arg)
{
	sigset_t set;
	char c;

	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	sigaddset(&set, SIGUSR1);
	CHECK(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8) == 0);
	CHECK(pthread_setname_np(pthread_self(), ") 1 2 (x) 3 4") == 0);
	__atomic_store_n(&sleeper_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	return read(pipe_fd[0], &c, 1) < 0 ? arg : NULL;
}

int main(void)
{
	struct timespec pause = { 0, 1000000 };
	struct sigaction sa = { .sa_handler = on_signal }, ign = { .sa_handler = SIG_IGN };
	unsigned long blocked, caught = 0;
	pthread_t t;
	char tid[24], state = 0;

	CHECK(pipe(pipe_fd) == 0);
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	CHECK(sigaction(SIGRTMIN + 1, &sa, NULL) == 0);
	CHECK(sigaction(SIGHUP, &ign, NULL) == 0);
	CHECK(pthread_create(&t, NULL, sleeper, NULL) == 0);
	while (!__atomic_load_n(&sleeper_tid, __ATOMIC_SEQ_CST))
		nanosleep(&pause, NULL);
	snprintf(tid, sizeof tid, "%d", (int)sleeper_tid);
	/* until it sleeps in read(): a loaded machine may be slow to get
	 * it there */
	for (int i = 0; i < 10000 && state != 'S'; i++) {
		CHECK(mv_linux_task_stat(tid, &state, &blocked, NULL));
		if (state != 'S')
			nanosleep(&pause, NULL);
	}
	CHECK(state == 'S');
	CHECK(blocked == (1ul << (SIGTRAP - 1) | 1ul << (SIGUSR1 - 1)));
	CHECK(mv_linux_task_stat(tid, &state, &blocked, &caught));
	CHECK(caught == 1ul << (SIGUSR2 - 1));

	snprintf(tid, sizeof tid, "%d", (int)syscall(SYS_gettid));
	CHECK(mv_linux_task_stat(tid, &state, &blocked, &caught));
	CHECK(state == 'R');
	CHECK(caught == 1ul << (SIGUSR2 - 1));
	CHECK(!(blocked >> (SIGTRAP - 1) & 1));

	CHECK(!mv_linux_task_stat("999999999", &state, &blocked, NULL));

	CHECK(write(pipe_fd[1], "", 1) == 1);
	CHECK(pthread_join(t, NULL) == 0);
	printf("task_stat: ok\n");
	return 0;
}
