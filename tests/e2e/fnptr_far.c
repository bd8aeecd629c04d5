/* SPDX-License-Identifier: MIT */
/* A function-pointer switch bound to a function of another module (the C
 * library's abs()), which may lie beyond a direct call's reach of the
 * site (x86-64: 2 GiB; AArch64: 128 MiB): commit binds the call, or
 * says that it cannot and the call stays indirect.  Never silently
 * unbound. */
#include "check.h"
#include <unistd.h>

static int mine(int x) { return x + 1000; }

__attribute__((multiverse)) int (*hook)(int) = abs;

__attribute__((noinline)) int use(int x) { return hook(x); }

int main(void)
{
	int pipefd[2], saved = dup(2);
	char said[4096] = "";

	CHECK_EQ(use(-5), 5);
	/* the runtime reports on stderr: catch it */
	CHECK(pipe(pipefd) == 0 && dup2(pipefd[1], 2) == 2);
	CHECK_EQ(multiverse_commit(), 1);
	fflush(stderr);
	dup2(saved, 2);
	close(pipefd[1]);
	ssize_t n = read(pipefd[0], said, sizeof said - 1);
	said[n > 0 ? n : 0] = 0;

	hook = mine;
	int bound = use(-5) == 5;
	if (!bound)
		CHECK(strstr(said, "switch hook: ") && strstr(said, " call site(s) cannot reach") &&
		      strstr(said, "stay indirect and follow writes to the switch"));
	else
		CHECK(!strstr(said, "cannot reach"));
	printf("fnptr_far: %s\n", bound ? "bound" : "out of reach, reported");
	/* revert, and a near target binds */
	CHECK_EQ(multiverse_revert(), 1);
	CHECK_EQ(use(-5), 995);
	CHECK_EQ(multiverse_commit(), 1);
	hook = abs;
	CHECK_EQ(use(-5), 995);
	CHECK_DONE();
}
