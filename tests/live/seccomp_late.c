/* SPDX-License-Identifier: MIT */
/*
 * A process that commits while a thread runs, then enters a sandbox that
 * denies membarrier(): a seccomp filter installed after start-up, for
 * every thread, as servers do.  The next commit must fail with a message
 * and leave the text as it was, byte for byte: before, the runtime found
 * out at the batch's first sync, with breakpoints already in the text,
 * and could not take them out again ("stuck areas").  The worker keeps
 * getting the committed configuration's results meanwhile.  Once the
 * worker has exited, the process is alone and needs no sync: the same
 * commit succeeds.
 */
#include "live.h"
#include "seccomp.h"

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

/* membarrier() fails with EPERM for every thread from now on. */
static int deny_membarrier(void)
{
	struct sock_filter f[] = {
		FILTER_SYSCALL_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_membarrier, 0, 1),
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

int main(void)
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

	r = deny_membarrier();
	if (r) {
		printf("seccomp_membarrier: no seccomp filter here (%s): nothing to test\n",
		       strerror(-r));
		atomic_store(&stop, 1);
		pthread_join(t, NULL);
		return live_done("seccomp_membarrier");
	}
	LIVE_CHECK(syscall(SYS_membarrier, 0 /* MEMBARRIER_CMD_QUERY */, 0, 0) < 0 &&
		   errno == EPERM);

	mode = 0;
	r = multiverse_commit();
	LIVE_CHECK(r < 0);
	if (!strstr(multiverse_last_error(), "membarrier() fails now") ||
	    !strstr(multiverse_last_error(), "nothing was written"))
		LIVE_FAIL("the message says \"%s\"", multiverse_last_error());
	LIVE_CHECK_EQ(snapshot(1), 0);          /* not a byte written */
	LIVE_CHECK_EQ(call_f(5), 15);           /* still mode 1's variant */
	LIVE_CHECK_EQ(multiverse_info_fn(f)->committed, 1);
	long before = rounds;
	while (rounds < before + 10)
		usleep(1000);

	/* alone (once the kernel no longer counts the worker): no sync
	 * needed */
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	while (threads() != 1)
		usleep(1000);
	LIVE_CHECK(multiverse_commit() >= 0);
	LIVE_CHECK_EQ(call_f(5), 6);
	LIVE_CHECK(multiverse_revert() >= 0);
	LIVE_CHECK_EQ(call_f(5), 6);            /* the generic, mode 0 */
	return live_done("seccomp_membarrier");
}
