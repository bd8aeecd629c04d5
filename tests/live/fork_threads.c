/* SPDX-License-Identifier: MIT */
/*
 * Processes and threads that come and go while commits run: fork(),
 * vfork() and posix_spawn() children, the fork()ed ones running the
 * patched functions and calling the API themselves (the parent's other
 * threads may have been inside it when they were forked), and threads
 * created and exiting all the time.
 */
#include "workload.h"

#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

static atomic_int stop_side;
static atomic_long forks, vforks, spawns, threads;

/* One pass over the patched functions: 0 if every result belongs to some
 * configuration. */
static int results_ok(void)
{
	unsigned long hits = 0;
	int bad = 0;

	for (int x = 0; x < 50; x++) {
		bad |= !calc_ok(x, call_calc(x) - 1);
		bad |= !calc_ok(x, tail_calc(x));
		bad |= !op_ok(op_arg(x), call_op(op_arg(x)) + 1);
		bad |= !konst_ok(call_konst() ^ 1);
		bad |= !ksmall_ok(call_ksmall() - 2);
		call_hook(&hits);
	}
	return bad || hits > 50;
}

static void fork_once(void)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		/* The API works in the child, and binds what the child sees. */
		int bad = results_ok();
		sel = 1;
		bad |= multiverse_commit() < 0;
		bad |= call_calc(2) - 1 != CALC_1(2);
		bad |= multiverse_revert() < 0;
		bad |= results_ok();
		_exit(bad);
	}
	LIVE_CHECK(pid > 0);
	LIVE_CHECK(waitpid(pid, &st, 0) == pid);
	LIVE_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	forks++;
}

static void vfork_once(void)
{
	int st;
	pid_t pid = vfork();

	if (pid == 0)
		_exit(!calc_ok(5, call_calc(5) - 1));
	LIVE_CHECK(pid > 0);
	LIVE_CHECK(waitpid(pid, &st, 0) == pid);
	LIVE_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	vforks++;
}

static void spawn_once(void)
{
	char *argv[] = { "true", NULL };
	pid_t pid;
	int st;

	LIVE_CHECK(posix_spawnp(&pid, "true", NULL, NULL, argv, environ) == 0);
	LIVE_CHECK(waitpid(pid, &st, 0) == pid);
	LIVE_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	spawns++;
}

static void *forker(void *arg)
{
	(void)arg;
	for (int i = 0; !atomic_load(&stop_side); i++) {
		switch (i % 3) {
		case 0: fork_once(); break;
		case 1: vfork_once(); break;
		case 2: spawn_once(); break;
		}
	}
	return NULL;
}

static void *short_lived(void *arg)
{
	(void)arg;
	if (results_ok())
		LIVE_FAIL("a short-lived thread saw a result of no configuration");
	return NULL;
}

static void *thread_churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_side)) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, short_lived, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		threads += 4;
	}
	return NULL;
}

int main(void)
{
	struct worker w[2];
	pthread_t side[2];
	unsigned s = 2024;
	unsigned long calls;

	live_guard(25);
	LIVE_CHECK_EQ(text_diffs(), 0);
	workload_start(w, 2);
	pthread_create(&side[0], NULL, forker, NULL);
	pthread_create(&side[1], NULL, thread_churn, NULL);

	/* A second of churn, longer if the scheduler kept a side thread off
	 * the processors: the counts below are coverage, not speed. */
	calls = workload_churn(1.0, &s);
	for (int i = 0; i < 150 && !(calls > 50 && forks > 3 && vforks > 3 &&
				     spawns > 3 && threads > 20); i++)
		calls += workload_churn(0.1, &s);
	atomic_store(&stop_side, 1);
	pthread_join(side[0], NULL);
	pthread_join(side[1], NULL);
	printf("fork_threads: %lu API calls; %ld forks, %ld vforks, %ld spawns, "
	       "%ld threads\n", calls, forks, vforks, spawns, threads);
	LIVE_CHECK(calls > 50 && forks > 3 && vforks > 3 && spawns > 3 && threads > 20);

	LIVE_CHECK(multiverse_revert() >= 0);
	workload_join(w, 2, 100);
	workload_check_pristine();
	return live_done("fork_threads");
}
