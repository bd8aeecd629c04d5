/* SPDX-License-Identifier: MIT */
/* Tiny variant bodies are inlined into the call site: an empty body
 * becomes a NOP, a constant return a mov.  The results must be what the
 * bodies return, at call sites and tail-call sites alike. */
#include <stdint.h>
#include "check.h"

__attribute__((multiverse)) _Bool tracing;
__attribute__((multiverse)) int mode;

static int traced;
__attribute__((noinline)) static void record(void) { traced++; __asm__ volatile(""); }

__attribute__((multiverse)) void trace(void) { if (tracing) record(); }
__attribute__((multiverse)) int get32(void) { return mode ? 0x12340000 : 0; }
__attribute__((multiverse)) long long get64(void) { return mode ? -1LL : 0x1122334455LL; }
__attribute__((multiverse)) long long getneg(void) { return mode ? -100 : 100; }
__attribute__((multiverse)) signed char get8(void) { return mode ? -3 : 77; }
__attribute__((multiverse)) _Bool getbool(void) { return !mode; }

__attribute__((noinline)) void do_trace(void) { trace(); __asm__ volatile(""); }
__attribute__((noinline)) int do32(void) { return get32() + 1; }
__attribute__((noinline)) int tail32(void) { return get32(); }
__attribute__((noinline)) long long do64(void) { return get64() + 1; }
__attribute__((noinline)) long long doneg(void) { return getneg() + 1; }
__attribute__((noinline)) int do8(void) { return get8() + 1; }
__attribute__((noinline)) int dobool(void) { return getbool() + 1; }

static unsigned inlined(void *fn)
{
	const struct mv_info_fn *fi = multiverse_info_fn(fn);
	return fi ? fi->n_sites_inlined : 0;
}

static void check_values(int m)
{
	CHECK_EQ(do32(), (m ? 0x12340000 : 0) + 1);
	CHECK_EQ(tail32(), m ? 0x12340000 : 0);
	CHECK_EQ(do64(), (m ? -1LL : 0x1122334455LL) + 1);
	CHECK_EQ(doneg(), (m ? -100 : 100) + 1);
	CHECK_EQ(do8(), (m ? -3 : 77) + 1);
	CHECK_EQ(dobool(), (!m) + 1);
}

int main(void)
{
	for (int m = 0; m <= 1; m++) {
		mode = m;
		tracing = 0;
		CHECK(multiverse_commit() >= 0);
		check_values(m);
		mode = !m;              /* bound: the inlined values stay */
		check_values(m);
		traced = 0;
		do_trace();
		CHECK_EQ(traced, 0);
#ifdef __OPTIMIZE__
		/* An optimized empty or constant body is small enough. */
		CHECK(inlined(trace) >= 1);
		CHECK(inlined(get32) >= 1);
		CHECK(inlined(getbool) >= 1);
#endif
		tracing = 1;
		CHECK(multiverse_commit() >= 1);
		CHECK_EQ(inlined(trace), 0);
		do_trace();
		CHECK_EQ(traced, 1);
	}
	CHECK(multiverse_revert() >= 1);
	CHECK_EQ(inlined(get32), 0);
	mode = 1;
	check_values(1);
	CHECK_DONE();
}
