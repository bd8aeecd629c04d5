/* SPDX-License-Identifier: MIT */
/*
 * A batch over more pages than one write may cover: each step of the
 * protocol writes one span per run of adjacent pages that hold areas, a
 * run being at most 64 KiB of pages from its first area's page
 * (runtime/platform/linux-user/poke.c, find_runs(); docs/patching.md).
 * Here the call sites fill just over 16 adjacent pages, so a commit takes
 * two runs of sites (one of 16 pages), and the runtime built with fault
 * injection counts its writes: each step must make exactly one per run
 * that the rule gives, computed here from the sites' and the entry's
 * addresses.  A run allowed past 64 KiB would overflow the buffer the
 * runtime copies the text into.  Every site must take effect, and the
 * revert leave the text as on disk.
 */
#include "live.h"
#include "text.h"

#include <stdlib.h>

void __multiverse_fault(int kind, long n, int keep_failing);
long __multiverse_fault_calls(int kind);
enum { F_WRITE = 0 };

__attribute__((multiverse)) int sel;
__attribute__((noipa)) int twice(int x) { return 2 * x; }
__attribute__((multiverse)) int h(int x) { return sel ? twice(x) + 1 : twice(x) - 1; }

#define C1(n) s += h(n);
#define C4(n) C1(n) C1((n) + 1) C1((n) + 2) C1((n) + 3)
#define C16(n) C4(n) C4((n) + 4) C4((n) + 8) C4((n) + 12)
#define C64(n) C16(n) C16((n) + 16) C16((n) + 32) C16((n) + 48)
#define C256(n) C64(n) C64((n) + 64) C64((n) + 128) C64((n) + 192)
/* About 17 pages of calls (16 bytes each on x86-64, 12 on AArch64, with
 * GCC -O2), so that a run allowed a few pages more would take them all
 * and the entry's page with them. */
#ifdef __aarch64__
#define CALLS (23 * 256)
#else
#define CALLS (17 * 256)
#endif

/* The sum of h(0) .. h(CALLS - 1): 2x + 1 each, or 2x - 1. */
__attribute__((noipa)) long calls(void)
{
	long s = 0;

	C256(0) C256(256) C256(512) C256(768) C256(1024) C256(1280) C256(1536)
	C256(1792) C256(2048) C256(2304) C256(2560) C256(2816) C256(3072)
	C256(3328) C256(3584) C256(3840) C256(4096)
#ifdef __aarch64__
	C256(4352) C256(4608) C256(4864) C256(5120) C256(5376) C256(5632)
#endif
	return s;
}

static long expected(int committed)
{
	long n = CALLS;

	return n * (n - 1) + (committed ? n : -n);
}

static int by_address(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return (x > y) - (x < y);
}

/* The runs find_runs() makes of areas at these addresses (sorted). */
static long model_runs(const uintptr_t *at, size_t n, uintptr_t page)
{
	size_t run_pages = page < 65536 ? 65536 / page : 1;
	long runs = 0;

	for (size_t i = 0; i < n; ) {
		uintptr_t first = at[i] / page, last = first + run_pages - 1, cur = first;

		runs++;
		for (i++; i < n; i++) {
			uintptr_t p = at[i] / page;

			if (p != cur && (p != cur + 1 || p > last))
				break;
			cur = p;
		}
	}
	return runs;
}

int main(void)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	const struct mv_info_fn *fi;
	uintptr_t *at;
	size_t n = 0;
	long runs, steps, writes;

	live_guard(120);
	LIVE_CHECK_EQ(text_diffs(), 0);
	LIVE_CHECK(multiverse_init() == 0);
	sel = 1;
	LIVE_CHECK_EQ(multiverse_commit(), 1);
	LIVE_CHECK(multiverse_revert() >= 0);

	fi = multiverse_info_fn(h);
	LIVE_CHECK(fi && fi->n_sites == CALLS);
	if (!fi || !(at = malloc((fi->n_sites + 1) * sizeof *at)))
		return live_done("faults/runs");
	for (unsigned i = 0; i < fi->n_sites; i++)
		at[n++] = (uintptr_t)multiverse_info_site(h, i)->addr;
	qsort(at, n, sizeof *at, by_address);
	LIVE_CHECK((at[n - 1] - at[0]) / page + 1 > 65536 / page);   /* past one run */
	/* The entry's patch area is at the function, or after its landing
	 * pad (4 bytes): on one page unless they straddle one. */
	LIVE_CHECK((uintptr_t)h / page == ((uintptr_t)h + 4) / page);
	at[n++] = (uintptr_t)h;
	qsort(at, n, sizeof *at, by_address);
	runs = model_runs(at, n, page);
#ifdef __x86_64__
	steps = 3;      /* breakpoints, tails, heads */
#else
	steps = 2;      /* AArch64: the breakpoint is the whole instruction */
#endif

	/* Alone, a batch larger than a page takes the steps without syncs. */
	__multiverse_fault(F_WRITE, 0, 0);
	LIVE_CHECK_EQ(multiverse_commit(), 1);
	writes = __multiverse_fault_calls(F_WRITE);
	sel = 0;
	LIVE_CHECK_EQ(calls(), expected(1));
	sel = 1;
	LIVE_CHECK_EQ(writes, steps * runs);
	LIVE_CHECK(runs >= 2);
	__multiverse_fault(F_WRITE, 0, 0);
	LIVE_CHECK(multiverse_revert() >= 0);
	LIVE_CHECK_EQ(__multiverse_fault_calls(F_WRITE), steps * runs);
	sel = 0;
	LIVE_CHECK_EQ(calls(), expected(0));
	LIVE_CHECK_EQ(text_diffs(), 0);
	free(at);
	return live_done("faults/runs");
}
