/* SPDX-License-Identifier: MIT */
/* A function-pointer switch bound to functions of another module (the C
 * library's abs() and toupper()), which in a PIE lie beyond a direct
 * call's reach of the sites (x86-64: 2 GiB; AArch64: 128 MiB): the sites
 * branch to far-call gates near them, so calls and tail calls stay bound
 * after writes, with nothing reported.  A gate lies on a page of its
 * own, executable and never writable.  Where executable mappings are
 * refused (a seccomp filter), there is no gate: the calls stay indirect,
 * and commit says so. */
#define _GNU_SOURCE
#include "check.h"
#include "text.h"
#include "../live/seccomp.h"
#include <ctype.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* A direct call's reach */
#if defined(__x86_64__)
#define REACH 0x7fffffffL
#else
#define REACH 0x7ffffffL
#endif

static int mine(int x) { return x + 1000; }

__attribute__((multiverse)) int (*hook)(int) = abs;

__attribute__((noinline)) int use(int x) { return hook(x) + 1; }
__attribute__((noinline)) int tail(int x) { return hook(x); }

/* The permissions of the mapping that holds addr, and whether it is a
 * file's. */
static int mapping_of(uintptr_t addr, char perms[5], int *named)
{
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");
	int found = 0;

	while (maps && !found && fgets(line, sizeof line, maps)) {
		unsigned long lo, hi;
		char path[256] = "";

		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %255s", &lo, &hi, perms, path) >= 3 &&
		    addr >= lo && addr < hi) {
			found = 1;
			*named = path[0] == '/';
		}
	}
	if (maps)
		fclose(maps);
	return found;
}

/* Commits, and returns what the runtime said on stderr meanwhile. */
static void commit_catching(char *said, size_t size)
{
	int pipefd[2], saved = dup(2);

	CHECK(pipe(pipefd) == 0 && dup2(pipefd[1], 2) == 2);
	CHECK_EQ(multiverse_commit(), 1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(pipefd[1]);
	ssize_t n = read(pipefd[0], said, size - 1);
	said[n > 0 ? n : 0] = 0;
	close(pipefd[0]);
}

/* In a child that may not map executable memory: no gate, so commit
 * leaves the far calls indirect and reports them. */
static void without_gates(int far)
{
	struct sock_filter filter[] = {
		FILTER_SYSCALL_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	char said[4096];
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		CHECK_EQ(install_seccomp(filter, sizeof filter / sizeof *filter, 0), 0);
		CHECK(mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
		      MAP_FAILED);
		commit_catching(said, sizeof said);
		CHECK(!far || strstr(said, "call site(s) cannot reach"));
		CHECK(!far || strstr(said, "nor through a gate near them; they stay indirect"));
		hook = mine;
		CHECK_EQ(use(-5), far ? 996 : 6);     /* unbound: follows the write */
		_exit(check_failures != 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	char said[4096];
	/* a PIE's sites are far from the C library */
	int far = labs((long)((uintptr_t)abs - (uintptr_t)use)) > REACH - 0x100000;

	without_gates(far);

	CHECK_EQ(use(-5), 6);
	commit_catching(said, sizeof said);
	CHECK(!strstr(said, "cannot reach"));
	hook = mine;                                  /* bound: no effect yet */
	CHECK_EQ(use(-5), 6);
	CHECK_EQ(tail(-5), 5);

	/* the site's branch goes to a gate, or straight to abs() where a
	 * non-PIE build puts it within reach */
	const struct mv_info_site *s = multiverse_info_site(&hook, 0);
	CHECK(s && s->holds == MULTIVERSE_SITE_CALL);
	uintptr_t to = s ? text_branch_target(s->addr) : 0;
	char perms[5] = "";
	int named = 1;
	CHECK(to);
	CHECK(far == (to != (uintptr_t)abs));
	if (to && to != (uintptr_t)abs) {
		CHECK(mapping_of(to, perms, &named));
		CHECK(!strcmp(perms, "r-xp") && !named);
	}
	printf("fnptr_far: %s\n", to == (uintptr_t)abs ? "direct" : "through a gate");

	/* another far target gets a gate of its own */
	hook = toupper;
	commit_catching(said, sizeof said);
	CHECK(!strstr(said, "cannot reach"));
	hook = mine;
	CHECK_EQ(use('a'), 'A' + 1);
	CHECK_EQ(tail('b'), 'B');

	/* and the first target its first gate again */
	hook = abs;
	commit_catching(said, sizeof said);
	hook = mine;
	CHECK_EQ(use(-7), 8);
	uintptr_t again = s ? text_branch_target(s->addr) : 0;
	CHECK_EQ(again, to);

	/* revert: the calls follow the pointer; a near target binds */
	CHECK_EQ(multiverse_revert(), 1);
	CHECK_EQ(use(-5), 996);
	CHECK_EQ(multiverse_commit(), 1);
	hook = abs;
	CHECK_EQ(use(-5), 996);
	CHECK_DONE();
}
