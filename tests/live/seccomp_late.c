/* SPDX-License-Identifier: MIT */
/*
 * A process that commits while a thread runs, then enters a sandbox: a
 * seccomp filter installed after start-up, for every thread, as servers
 * do.  The next commit must fail with a message and leave the text as it
 * was, byte for byte, and the worker keeps getting the committed
 * configuration's results meanwhile.  Two sandboxes, each in a child of
 * its own (a filter stays for good):
 *   - one that denies membarrier(): before, the runtime found out at the
 *     batch's first sync, with breakpoints already in the text, and
 *     could not take them out again ("stuck areas").  Once the worker
 *     has exited, the process is alone and needs no sync: the same
 *     commit succeeds;
 *   - one that denies pwrite(): the batch's first write fails, and
 *     nothing has been written (before, the runtime said it could not
 *     roll back and kept every area as stuck).
 */
#include "live.h"
#include "seccomp.h"
#include <sys/wait.h>

__attribute__((multiverse)) int mode;

int k3 = 3, k1 = 1;     /* not static: no compiler may fold them */

/* Unpadded, and each variant longer than a call: a commit retargets the
 * call live, which needs the sync. */
__attribute__((multiverse("inline", 0))) int f(int x);
__attribute__((multiverse)) int f(int x)
{
	return mode ? x * k3 : x + k1;
}

LIVE_CALLER int call_f(int x) { return f(x) + 0; }

static atomic_int stop;
static atomic_long rounds;

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		for (int x = 2; x < 50; x++) {
			int r = call_f(x);
			if (r != x * 3 && r != x + 1)
				LIVE_FAIL("f(%d) = %d", x, r);
		}
		rounds++;
	}
	return NULL;
}

/* System call nr fails with EPERM for every thread from now on. */
static int deny(unsigned nr)
{
	struct sock_filter f[] = {
		FILTER_SYSCALL_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return install_seccomp(f, sizeof f / sizeof f[0], 1);
}

/* The bytes of every call site of f and of f's entry. */
#define SNAP 16
static unsigned char snap[8][SNAP];

static int snapshot(int compare)
{
	const struct mv_info_fn *fi = multiverse_info_fn(f);
	unsigned n = fi ? fi->n_sites : 0, diffs = 0;
	const void *where[8];

	if (!fi || n < 1 || n + 1 > 8)
		return -1;
	where[0] = fi->generic;
	for (unsigned i = 0; i < n; i++)
		where[i + 1] = multiverse_info_site(f, i)->addr;
	for (unsigned i = 0; i <= n; i++) {
		if (compare)
			diffs += memcmp(snap[i], where[i], SNAP) != 0;
		else
			memcpy(snap[i], where[i], SNAP);
	}
	return (int)diffs;
}

/* The Threads: line of /proc/self/status. */
static long threads(void)
{
	char buf[4096], *at;
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	at = strstr(buf, "\nThreads:");
	return at ? strtol(at + 9, NULL, 10) : -1;
}

/* One sandbox, in a child: 0 if all went as it must, 2 if this kernel
 * has no seccomp filters. */
static int sandboxed(const char *name, unsigned nr, const char *why)
{
	pthread_t t;
	int r;

	live_guard(LIVE_HANG_SECONDS);
	LIVE_CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
	while (rounds < 10)
		usleep(1000);

	mode = 1;
	LIVE_CHECK(multiverse_commit() >= 0);
	LIVE_CHECK_EQ(call_f(5), 15);
	LIVE_CHECK_EQ(snapshot(0), 0);

	r = deny(nr);
	if (r) {
		printf("%s: no seccomp filter here (%s): nothing to test\n", name, strerror(-r));
		atomic_store(&stop, 1);
		pthread_join(t, NULL);
		return 2;
	}

	/* twice: a failed batch must not leave anything for the next */
	for (int i = 0; i < 2; i++) {
		mode = 0;
		r = multiverse_commit();
		LIVE_CHECK(r < 0);
		if (!strstr(multiverse_last_error(), why) ||
		    !strstr(multiverse_last_error(), "nothing was written"))
			LIVE_FAIL("%s: the message says \"%s\"", name, multiverse_last_error());
		LIVE_CHECK_EQ(snapshot(1), 0);          /* not a byte written */
		LIVE_CHECK_EQ(call_f(5), 15);           /* still mode 1's variant */
		LIVE_CHECK_EQ(multiverse_info_fn(f)->committed, 1);
		long before = rounds;
		while (rounds < before + 10)
			usleep(1000);
	}

	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	if (nr == SYS_membarrier) {
		/* alone (once the kernel no longer counts the worker): no
		 * sync needed */
		while (threads() != 1)
			usleep(1000);
		LIVE_CHECK(multiverse_commit() >= 0);
		LIVE_CHECK_EQ(call_f(5), 6);
		LIVE_CHECK(multiverse_revert() >= 0);
		LIVE_CHECK_EQ(call_f(5), 6);            /* the generic, mode 0 */
	}
	return live_done(name);
}

static void in_child(const char *name, unsigned nr, const char *why)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(sandboxed(name, nr, why));
	LIVE_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 2))
		LIVE_FAIL("%s: the child ended with status %#x", name, status);
}

int main(void)
{
	live_guard(LIVE_HANG_SECONDS);
	in_child("membarrier denied", SYS_membarrier, "membarrier() fails now");
	in_child("pwrite denied", SYS_pwrite64, "/proc/thread-self/mem: Operation not permitted");
	return live_done("seccomp_late");
}
