/* SPDX-License-Identifier: MIT */
/* A program started with standard input, output and error closed (as
 * posix_spawn with POSIX_SPAWN_CLOSE leaves it; found by CPython's
 * test_posix).  The runtime's descriptor for writing code must not take
 * their place: the program's next write(1, ...) would write into its own
 * memory, and its fstat(0) would not fail as it expects. */
#include "check.h"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

MULTIVERSE int mode;
MULTIVERSE int get(void) { return mode ? 1 : 2; }

int main(void)
{
	int err = dup(2);
	int closed[3];

	close(0), close(1), close(2);
	mode = 1;
	int committed = multiverse_commit();
	for (int fd = 0; fd < 3; fd++)
		closed[fd] = fcntl(fd, F_GETFD) < 0 && errno == EBADF;
	dup2(err, 2);           /* to report */

	CHECK(committed >= 1);
	CHECK_EQ(multiverse_is_committed(get), 1);
	mode = 0;
	CHECK_EQ(get(), 1);
	for (int fd = 0; fd < 3; fd++)
		if (!closed[fd])
			fprintf(stderr, "descriptor %d was taken by the runtime\n", fd);
	CHECK(closed[0] && closed[1] && closed[2]);
	CHECK_DONE();
}
