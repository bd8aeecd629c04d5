/* SPDX-License-Identifier: MIT */
/* A failure of the environment that goes away is not remembered: the
 * first commit runs while the process is out of file descriptors, so
 * /proc/thread-self/mem cannot be opened; it fails, saying nothing was written,
 * and writes nothing.  Once descriptors are free again, commit works. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "text.h"

__attribute__((multiverse)) int mode;
__attribute__((multiverse)) int fn(int x) { return mode ? x * 10 : x; }
__attribute__((noipa)) int call_fn(int x) { return fn(x); }

int main(void)
{
	struct rlimit lim = { 64, 64 };
	int fds[64], n = 0, fd;

	CHECK_EQ(text_diffs(), 0);
	CHECK_EQ(multiverse_init(), 0);
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		fds[n++] = fd;
	CHECK_EQ(errno, EMFILE);

	mode = 1;
	CHECK_EQ(multiverse_commit(), -EMFILE);
	char why[128];
	snprintf(why, sizeof why, "/proc/thread-self/mem: %s", strerror(EMFILE));
	CHECK(strstr(multiverse_last_error(), why) != NULL);
	CHECK(strstr(multiverse_last_error(), "nothing was written") != NULL);
	CHECK_EQ(multiverse_is_committed(fn), 0);
	CHECK_EQ(call_fn(3), 30);   /* the generic reads the switch */

	while (n)
		close(fds[--n]);
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_is_committed(fn), 1);
	mode = 0;
	CHECK_EQ(call_fn(3), 30);   /* bound until the next commit */
	CHECK_EQ(multiverse_revert(), 1);
	CHECK_EQ(call_fn(3), 3);
	CHECK_EQ(text_diffs(), 0);
	CHECK_DONE();
}
