/* SPDX-License-Identifier: MIT */
/* Calls of an updated function in one process: a redirected call
 * (multiverse_redirect) against a direct call of the new version and a
 * call through an indirection table, the new version in the executable
 * (near) and in a shared object (far).  See redirect.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "harness.h"

void *redirect_module(void);

/* How far a direct call reaches (x86-64 rel32: 2 GiB; AArch64 bl:
 * 128 MiB), and a margin for the size of the program's code. */
#if defined(__x86_64__)
#define REACH ((uintptr_t)2 << 30)
#else
#define REACH ((uintptr_t)128 << 20)
#endif
#define MARGIN ((uintptr_t)64 << 20)

/* Whether [p, p + size) lies within a direct call's reach of the
 * program's code (which is around this function). */
static int within_reach(uintptr_t p, size_t size)
{
	uintptr_t code = (uintptr_t)&redirect_module;

	return p + size + REACH + MARGIN > code && p < code + REACH + MARGIN;
}

/* redirect_module(), declared in redirect.h: the shared object holding
 * the far NEWs, found through the program's run path ($ORIGIN: next to
 * it, build/bin/), loaded once, beyond a direct call's reach from the
 * program's code, where a shared object is in a normal process (the
 * kernel maps it top-down, terabytes away from a PIE program).  Under
 * valgrind, which hands out the lowest free addresses first, next to the
 * program, it would land within reach: so, first, every free piece of
 * address space within reach that mmap hands out is reserved, in ever
 * smaller pieces, and given back after the load.  In a normal process
 * the first piece already lies beyond reach, and nothing is kept. */
void *redirect_module(void)
{
	static void *h;
	static const size_t sizes[] = { 64 << 20, 1 << 20, 64 << 10, 4 << 10 };
	static void *held[8192];
	static size_t size_of[8192];
	int n = 0;

	if (h)
		return h;
	for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		while (n < 8192) {
			void *p = mmap(NULL, sizes[k], PROT_NONE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (p == MAP_FAILED)
				break;
			if (!within_reach((uintptr_t)p, sizes[k])) {
				munmap(p, sizes[k]);
				break;
			}
			held[n] = p;
			size_of[n++] = sizes[k];
		}
	}
	h = dlopen("libredirect-loaded.so", RTLD_NOW);
	while (n--)
		munmap(held[n], size_of[n]);
	return h;
}

#define BUILD(k) uint64_t k##_warm_call(long), k##_cold_call(long); int k##_setup(void);
BUILD(direct_near) BUILD(mv_near) BUILD(table_near)
BUILD(direct_far) BUILD(mv_far) BUILD(table_far)

#define CAND(k, build, mode) \
	{ "redirect", "call of an updated function", build, mode, k##_warm_call, \
	  k##_cold_call, k##_setup }

static const struct candidate candidates[] = {
	CAND(direct_near, "direct", "near"),
	CAND(mv_near, "redirected", "near"),
	CAND(table_near, "table", "near"),
	CAND(direct_far, "direct", "far"),
	CAND(mv_far, "redirected", "far"),
	CAND(table_far, "table", "far"),
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, candidates,
			    sizeof candidates / sizeof candidates[0]);
}
