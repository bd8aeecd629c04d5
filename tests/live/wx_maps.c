/* SPDX-License-Identifier: MIT */
/*
 * No mapping is ever writable and executable, not even for an instant
 * during a commit: a watcher thread reads /proc/self/maps over and over
 * while this thread commits and reverts thousands of times and worker
 * threads run the patched code.  A runtime that wrote text by making it
 * rwx for the moment of the write (an mprotect fallback) is caught within
 * a few hundred writes.
 *
 * The watcher is first shown a mapping it must report, so a watcher that
 * could not see one (a parsing mistake, an unreadable maps file) fails
 * the test instead of passing it.
 */
#include "workload.h"     /* first: it defines _GNU_SOURCE */

#define SECONDS 1.0
#define MAX_OPS 100000
#define WORKERS 2
#define MIN_OPS 500
#define MIN_CHANGES 200
#define MIN_READS 300           /* of the maps file, while patching */

static atomic_int watch_stop;
static atomic_long watch_reads;          /* complete reads of the maps file */
static atomic_long wx_seen;              /* rwx mappings found, besides the decoy */
static atomic_uintptr_t decoy;           /* start of our own rwx mapping, or 0 */
static atomic_long decoy_seen;

/* Checks one line "start-end perms offset dev inode path". */
static void check_line(const char *line)
{
	uintptr_t start;
	char perms[5];

	if (sscanf(line, "%" SCNxPTR "-%*x %4s", &start, perms) != 2) {
		LIVE_FAIL("cannot parse /proc/self/maps line: %s", line);
		return;
	}
	if (!strchr(perms, 'w') || !strchr(perms, 'x'))
		return;
	if (start == atomic_load(&decoy)) {
		atomic_fetch_add(&decoy_seen, 1);
		return;
	}
	atomic_fetch_add(&wx_seen, 1);
	LIVE_FAIL("writable and executable mapping: %s", line);
}

static void *watcher(void *arg)
{
	static char buf[1 << 16];

	(void)arg;
	while (!atomic_load(&watch_stop)) {
		int fd = open("/proc/self/maps", O_RDONLY);
		size_t len = 0;
		ssize_t n;

		if (fd < 0) {
			LIVE_FAIL("open /proc/self/maps: %s", strerror(errno));
			break;
		}
		/* The kernel fills each read with whole lines. */
		while ((n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
			len += n;
		close(fd);
		if (n < 0 || len == 0 || len == sizeof buf - 1) {
			LIVE_FAIL("reading /proc/self/maps failed or overflowed (%zu bytes)", len);
			break;
		}
		buf[len] = 0;
		for (char *line = buf, *nl; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl)
				break;
			*nl = 0;
			check_line(line);
		}
		atomic_fetch_add(&watch_reads, 1);
	}
	return NULL;
}

/* Waits until the watcher has read the maps file twice more, so that one
 * read started after whatever we did before calling this. */
static int wait_reads(long n, double timeout)
{
	long from = atomic_load(&watch_reads);
	double t0 = live_now();

	while (atomic_load(&watch_reads) < from + n)
		if (live_now() - t0 > timeout)
			return -1;
		else
			usleep(100);
	return 0;
}

int main(void)
{
	static struct worker w[WORKERS];
	unsigned long ops = 0, changes = 0;
	unsigned s = 777;
	pthread_t tw;
	double t0;

	live_guard(LIVE_HANG_SECONDS);
	sel = 0, kmode = 0, hook_on = 1, op = op_xor;
	pthread_create(&tw, NULL, watcher, NULL);

	/* The decoy: an rwx mapping of our own that the watcher must find.
	 * Where the system forbids rwx mappings altogether, no runtime can
	 * make one either, and the control is skipped. */
	/* Named before it becomes rwx: the watcher may read the maps file
	 * between any two of these calls. */
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		atomic_store(&decoy, (uintptr_t)p);
		if (mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC)) {
			munmap(p, 4096);
			p = MAP_FAILED;
		}
	}
	if (p != MAP_FAILED) {
		if (wait_reads(2, 5.0) || !atomic_load(&decoy_seen))
			LIVE_FAIL("the watcher did not see the rwx mapping at %p: it is blind", p);
		munmap(p, 4096);
		/* Only then forget it, so no read from before munmap counts. */
		wait_reads(2, 5.0);
		atomic_store(&decoy, 0);
	} else {
		atomic_store(&decoy, 0);
		printf("wx_maps: rwx mappings are forbidden here (%s); no decoy\n",
		       strerror(errno));
	}

	workload_start(w, WORKERS);
	long reads0 = atomic_load(&watch_reads);
	t0 = live_now();
	/* At least SECONDS, and on until there was enough patching to prove
	 * something, however long that takes (the arm64 guest made 472
	 * calls in 40 s once, beside two heavy jobs): only the hang guard
	 * bounds it. */
	while (ops < MAX_OPS && !live_failures &&
	       (live_now() - t0 < SECONDS || ops < MIN_OPS || changes < MIN_CHANGES ||
		atomic_load(&watch_reads) - reads0 < MIN_READS)) {
		const char *what;
		int r = workload_step(&s, &what);

		if (r < 0)
			break;
		ops++;
		changes += r;
	}
	LIVE_CHECK(multiverse_revert() >= 0);
	/* One more read after the last write. */
	wait_reads(2, 5.0);
	long reads = atomic_load(&watch_reads) - reads0;
	atomic_store(&watch_stop, 1);
	pthread_join(tw, NULL);
	workload_join(w, WORKERS, 100);
	printf("wx_maps: %lu API calls, %lu changes, maps read %ld times, "
	       "%ld rwx mappings seen\n", ops, changes, reads, atomic_load(&wx_seen));

	/* A watcher that rarely looked proves nothing. */
	LIVE_CHECK(reads >= MIN_READS);
	LIVE_CHECK(ops >= MIN_OPS);
	LIVE_CHECK(changes >= MIN_CHANGES);
	workload_check_pristine();
	return live_done("wx_maps");
}
