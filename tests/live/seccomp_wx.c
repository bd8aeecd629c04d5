/* SPDX-License-Identifier: MIT */
/*
 * Commit and revert work in a process that may never map memory writable
 * and executable: a seccomp filter makes mprotect, pkey_mprotect and mmap
 * fail with EPERM when they ask for PROT_WRITE and PROT_EXEC together, as
 * hardened sandboxes do.  The filter is tested first (rwx must be refused,
 * rw and rx must still work), then the program commits and reverts while
 * a worker thread runs the patched code, and checks that every path
 * returns the committed configuration's results.  A runtime that needs an
 * rwx mapping to write code fails here.
 */
#include "workload.h"     /* first: it defines _GNU_SOURCE */
#include "seccomp.h"

#define ROUNDS 400

/* prot is the third argument of all three calls; its low 32 bits (both
 * architectures are little-endian) hold every PROT_ flag. */
#define ARG2_LO offsetof(struct seccomp_data, args[2])
#define WX (PROT_WRITE | PROT_EXEC)

static int install_filter(void)
{
	struct sock_filter f[] = {
		FILTER_SYSCALL_NR,
		/* x32 numbers have bit 30 set; none of them is allowed rwx either. */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pkey_mprotect, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG2_LO),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, WX),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WX, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return install_seccomp(f, sizeof f / sizeof f[0], 0);
}

/* A call that must fail with EPERM. */
#define REFUSED(call) do { \
	errno = 0; \
	long r_ = (long)(call); \
	if (!(r_ == -1 && errno == EPERM)) \
		LIVE_FAIL("%s returned %ld (%s), want EPERM", #call, r_, strerror(errno)); \
} while (0)

#define ALLOWED(call) do { \
	if ((call) != 0) \
		LIVE_FAIL("%s failed: %s", #call, strerror(errno)); \
} while (0)

static void prove_filter(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		LIVE_FAIL("mmap rw: %s", strerror(errno));
		return;
	}
	REFUSED(mprotect(p, page, PROT_READ | PROT_WRITE | PROT_EXEC));
	REFUSED(mprotect(p, page, PROT_WRITE | PROT_EXEC));
	REFUSED(syscall(SYS_pkey_mprotect, p, page, PROT_READ | PROT_WRITE | PROT_EXEC, -1));
	/* by the system call: musl's mmap() reports EPERM as ENOMEM */
	REFUSED(syscall(SYS_mmap, NULL, page, (long)(PROT_READ | PROT_WRITE | PROT_EXEC),
			(long)(MAP_PRIVATE | MAP_ANONYMOUS), -1L, 0L) == -1 ? -1 : 0);
	ALLOWED(mprotect(p, page, PROT_READ));
	ALLOWED(mprotect(p, page, PROT_READ | PROT_WRITE));
	ALLOWED(mprotect(p, page, PROT_READ | PROT_EXEC));
	/* Kernels without protection keys (Debian's arm64) lack the call. */
	if (syscall(SYS_pkey_mprotect, p, page, PROT_READ, -1) && errno != ENOSYS)
		LIVE_FAIL("pkey_mprotect(PROT_READ) failed: %s", strerror(errno));
	munmap(p, page);
}

/* Commits (or reverts) and expects this many changes at least. */
static void api(const char *what, int r, int min)
{
	if (r < min)
		LIVE_FAIL("%s returned %d, want at least %d: %s", what, r, min,
			  multiverse_last_error());
}

int main(void)
{
	struct worker w[1];
	int (*const ops[])(int) = { op_add, op_xor, calc };

	live_guard(30);
	int err = install_filter();
	if (err) {
		fprintf(stderr, "cannot install the seccomp filter: %s\n", strerror(-err));
		return 1;
	}
	prove_filter();
	if (live_failures)
		return live_done("seccomp_wx");

	LIVE_CHECK_EQ(text_diffs(), 0);
	workload_start(w, 1);
	for (int i = 0; i < ROUNDS && !live_failures; i++) {
		int c = i & 1, k = (i >> 1) & 1, h = (i >> 2) & 1;
		int (*o)(int) = ops[i % 3];

		/* Commit one configuration; every path runs it. */
		sel = c, kmode = k, hook_on = h, op = o;
		api("multiverse_commit", multiverse_commit(), i ? 1 : 5);
		LIVE_CHECK_EQ(multiverse_is_committed(calc), 1);
		LIVE_CHECK_EQ(multiverse_is_committed(&op), 1);
		workload_expect(c, k, h, o);
		/* Bound: new switch values do nothing until the next commit, so
		 * the results come from patched code, not from the generics. */
		sel = !c, kmode = !k, hook_on = !h, op = ops[(i + 1) % 3];
		workload_expect(c, k, h, o);

		/* Per-function and per-switch commits, then a revert to the
		 * generics, which read the switches again. */
		if (i % 4 == 3) {
			api("multiverse_commit_fn", multiverse_commit_fn(calc), 1);
			api("multiverse_commit_refs", multiverse_commit_refs(&op), 1);
			workload_expect(!c, k, h, op);
			api("multiverse_revert", multiverse_revert(), 5);
			LIVE_CHECK_EQ(multiverse_is_committed(calc), 0);
			workload_expect(!c, !k, !h, op);
		}
	}
	api("multiverse_revert", multiverse_revert(), 0);
	workload_join(w, 1, 100);
	workload_check_pristine();
	return live_done("seccomp_wx");
}
