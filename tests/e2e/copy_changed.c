/* SPDX-License-Identifier: MIT */
/* A variant whose code changed after its module was loaded, as a
 * debugger's breakpoint or a uprobe changes it, is called, never copied
 * into a padded call site: the copy would carry the change along.  Once
 * the code reads as it did again, commit copies it. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include "check.h"

/* The plugins describe which variants may be copied (gcc/inline.cc,
 * clang/inline.cpp); at -O0 every variant has a frame, so the site is
 * called throughout. */
#if !defined(__OPTIMIZE__)
#define COPIES 0
#else
#define COPIES 1
#endif

__attribute__((multiverse)) int mode;
long base = 7;
__attribute__((multiverse("inline", 24))) long f(long x);
__attribute__((multiverse)) long f(long x) { return mode ? x * 3 + base : x - base; }
__attribute__((noinline)) long call_f(long x) { return f(x) + 1; }

#ifdef __x86_64__
static const uint8_t breakpoint[] = { 0xcc };
#else
static const uint8_t breakpoint[] = { 0x00, 0x00, 0x20, 0xd4 };    /* brk #0 */
#endif

static void poke(void *at, const void *bytes, size_t n)
{
	int fd = open("/proc/self/mem", O_RDWR);
	CHECK(fd >= 0 && pwrite(fd, bytes, n, (off_t)(uintptr_t)at) == (ssize_t)n);
	close(fd);
	__builtin___clear_cache((char *)at, (char *)at + n);
}

int main(void)
{
	uint8_t saved[sizeof breakpoint];
	void *variant;

	mode = 1;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_info_fn(f)->n_sites_inlined, COPIES);  /* copied */
	CHECK_EQ(call_f(2), 2 * 3 + 7 + 1);
	variant = multiverse_info_fn(f)->active;
	CHECK_EQ(multiverse_revert(), 1);

	/* a "breakpoint" on the variant's first instruction */
	memcpy(saved, variant, sizeof saved);
	poke(variant, breakpoint, sizeof breakpoint);
	CHECK_EQ(multiverse_commit(), 1);
	CHECK(!COPIES || strstr(multiverse_last_error(), "changed since it was loaded"));
	CHECK_EQ(multiverse_info_fn(f)->n_sites_inlined, 0);     /* called */
	CHECK_EQ(multiverse_info_fn(f)->active, variant);
	poke(variant, saved, sizeof saved);      /* the "debugger" leaves */
	CHECK_EQ(call_f(2), 2 * 3 + 7 + 1);

	CHECK(multiverse_commit() >= 0);
	CHECK_EQ(multiverse_info_fn(f)->n_sites_inlined, COPIES);  /* copied again */
	CHECK_EQ(call_f(4), 4 * 3 + 7 + 1);
	CHECK_EQ(multiverse_revert(), 1);
	CHECK_DONE();
}
