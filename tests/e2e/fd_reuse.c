/* SPDX-License-Identifier: MIT */
/* The runtime holds no descriptor between calls.  A daemon that closes
 * every descriptor above 2 (closefrom(3)) and then opens a file of its
 * own must not have the next commit write code into that file, as it
 * would if the runtime kept /proc/thread-self/mem open under a number
 * the program reused. */
#include "check.h"
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

MULTIVERSE int mode;
MULTIVERSE int get(void) { return mode ? 1 : 2; }

/* How many of the process's descriptors are a /proc/.../mem file. */
static int mem_files(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[64], target[256];
	int n = 0;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		ssize_t len = readlink(path, target, sizeof target - 1);
		if (len > 4 && !memcmp(target + len - 4, "/mem", 4))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	static const char text[] = "the daemon's own data";
	char file[] = "/tmp/mv-fd-reuse-XXXXXX", back[sizeof text] = "";

	mode = 1;
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(mem_files(), 0);
	CHECK_EQ(get(), 1);

	for (int fd = 3; fd < 1024; fd++)   /* closefrom(3) */
		close(fd);
	int fd = mkstemp(file);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, text, sizeof text), sizeof text);

	mode = 0;
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(get(), 2);
	CHECK_EQ(pread(fd, back, sizeof back, 0), sizeof text);
	CHECK(!memcmp(back, text, sizeof text));
	CHECK_EQ(mem_files(), 0);
	close(fd);
	unlink(file);
	CHECK_DONE();
}
