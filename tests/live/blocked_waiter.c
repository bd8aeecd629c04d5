/* SPDX-License-Identifier: MIT */
/*
 * A commit that parks every thread (it changes copied bodies) while one
 * thread, every signal blocked by the raw system call, waits for a lock
 * that another thread holds, as musl's fork(), pthread_create() and
 * posix_spawn() do.  If the holder parks first, the waiter can take
 * neither the lock nor the signal that would park it.  The stop must see
 * that, let everyone go until the waiter has its lock and unblocks, and
 * stop again (runtime/platform/linux-user/stop.c): every commit and
 * revert succeeds.  Before, each such meeting ran out the stop's time and
 * failed with -EBUSY.
 */
#include "live.h"

#include <linux/futex.h>

#define ROUNDS 100

__attribute__((multiverse)) int mode;
long done1;

__attribute__((multiverse("inline", 32))) void step(void);
__attribute__((multiverse)) void step(void)
{
	if (mode == 1)
		done1++;
}

LIVE_CALLER void call_step(void) { step(); __asm__ volatile(""); }

/* A lock of our own, so that the waiter sleeps in futex() as musl's do. */
static atomic_int lock_word;

static void lock(void)
{
	int z = 0;

	while (!atomic_compare_exchange_strong(&lock_word, &z, 1)) {
		syscall(SYS_futex, &lock_word, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
		z = 0;
	}
}

static void unlock(void)
{
	atomic_store(&lock_word, 0);
	syscall(SYS_futex, &lock_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* nanosleep() through the stop's signal (it fails with EINTR then) */
static void sleep_us(long us)
{
	struct timespec t = { 0, us * 1000 }, left;

	while (nanosleep(&t, &left) < 0 && errno == EINTR)
		t = left;
}

static void set_mask_raw(int how, const sigset_t *set, sigset_t *old)
{
	LIVE_CHECK(syscall(SYS_rt_sigprocmask, how, set, old, 8) == 0);
}

static atomic_int stop;
static atomic_long holds, waits;

/* Holds the lock half the time, and runs the site. */
static void *holder(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		lock();
		sleep_us(1000);
		unlock();
		call_step();
		holds++;
		sleep_us(1000);
	}
	return NULL;
}

/* Takes the lock with every signal blocked, as musl's fork() does, but
 * for the runtime's in-handler mark (signal 64, linux-user.h): a thread
 * blocking that one counts as inside a handler, and the commit binds by
 * calls that time, which needs no stop. */
static void *waiter(void *arg)
{
	sigset_t all, old;

	(void)arg;
	sigfillset(&all);
	sigdelset(&all, 64);
	while (!atomic_load(&stop)) {
		set_mask_raw(SIG_BLOCK, &all, &old);
		lock();
		unlock();
		set_mask_raw(SIG_SETMASK, &old, NULL);
		waits++;
		sleep_us(500);
	}
	return NULL;
}

/* multiverse_commit() or multiverse_revert(), again while the check
 * before any stop refuses because the waiter blocked SIGTRAP at every
 * look over 100 ms (a loaded machine may keep it waiting that long):
 * that refusal is documented, writes nothing, and is not what this
 * test is about.  Any other failure is returned. */
static int call(int (*api)(void))
{
	int r;

	for (int tries = 0; (r = api()) == -EDEADLK && tries < 100; tries++)
		sleep_us(1000);
	return r;
}

int main(void)
{
	pthread_t h, w;
	double start;
	int r;

	live_guard(LIVE_HANG_SECONDS);
	LIVE_CHECK(pthread_create(&h, NULL, holder, NULL) == 0);
	LIVE_CHECK(pthread_create(&w, NULL, waiter, NULL) == 0);
	while (holds < 3 || waits < 3)
		sleep_us(1000);

	start = live_now();
	for (int i = 0; i < ROUNDS; i++) {
		mode = i & 1;   /* an empty body (a NOP), or a copy */
		r = call(multiverse_commit);
		if (r < 0)
			LIVE_FAIL("round %d: multiverse_commit() = %d: %s", i, r,
				  multiverse_last_error());
		LIVE_CHECK_EQ(multiverse_info_fn(step)->n_sites_inlined, 1);
		r = call(multiverse_revert);
		if (r < 0)
			LIVE_FAIL("round %d: multiverse_revert() = %d: %s", i, r,
				  multiverse_last_error());
		sleep_us(700);
	}
	printf("%d commits and reverts in %.2f s; the waiter took the lock %ld times\n",
	       ROUNDS, live_now() - start, (long)waits);

	atomic_store(&stop, 1);
	pthread_join(h, NULL);
	pthread_join(w, NULL);

	mode = 1;
	LIVE_CHECK(multiverse_commit() >= 0);
	done1 = 0;
	call_step();
	LIVE_CHECK_EQ(done1, 1);
	LIVE_CHECK(multiverse_revert() >= 0);
	return live_failures ? 1 : 0;
}
