/* SPDX-License-Identifier: MIT */
/* -fipa-ra lets GCC keep a caller's values in call-clobbered registers
 * across a call when it knows the callee leaves them alone.  A variant may
 * clobber registers the generic does not, so callers of a multiversed
 * function must assume only the ABI.
 *
 * Here the generic clobbers nothing (__builtin_constant_p(sw) is false in
 * it), while the variant for sw == 1 overwrites every call-clobbered
 * general register.  The callers keep five values live across the call;
 * after commit they must still be intact, through a recorded call site
 * and through a pointer to the generic.  Without the plugin's noipa on the
 * generic, GCC 12 at -O2 keeps them in rdi/rsi/rdx/rcx/r8 (x2-x6 on
 * AArch64) and this test fails.  Clang allocates registers across calls
 * only with -mllvm -enable-ipra; without the Clang plugin's record of the
 * generic's registers (clang/sites.cpp) the test fails there too. */
// mvflags-clang: -mllvm -enable-ipra
#include "check.h"

#ifdef __x86_64__
#define CLOBBER_CALL_CLOBBERED() __asm__ volatile( \
	"mov $0xdead, %%eax\n\tmov $0xdead, %%ecx\n\t" \
	"mov $0xdead, %%edx\n\tmov $0xdead, %%esi\n\t" \
	"mov $0xdead, %%edi\n\tmov $0xdead, %%r8d\n\t" \
	"mov $0xdead, %%r9d\n\tmov $0xdead, %%r10d\n\t" \
	"mov $0xdead, %%r11d" \
	::: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11")
#else   /* AArch64: x0-x17 */
#define CLOBBER_CALL_CLOBBERED() __asm__ volatile( \
	"mov x0, #0xdead\n\tmov x1, #0xdead\n\tmov x2, #0xdead\n\t" \
	"mov x3, #0xdead\n\tmov x4, #0xdead\n\tmov x5, #0xdead\n\t" \
	"mov x6, #0xdead\n\tmov x7, #0xdead\n\tmov x8, #0xdead\n\t" \
	"mov x9, #0xdead\n\tmov x10, #0xdead\n\tmov x11, #0xdead\n\t" \
	"mov x12, #0xdead\n\tmov x13, #0xdead\n\tmov x14, #0xdead\n\t" \
	"mov x15, #0xdead\n\tmov x16, #0xdead\n\tmov x17, #0xdead" \
	::: "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", \
	    "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17")
#endif

__attribute__((multiverse)) int sw;

static int calls;

__attribute__((multiverse)) void f(void)
{
	if (sw)         /* a plain read too: -O0 folds __builtin_constant_p early */
		calls++;
	if (__builtin_constant_p(sw) && sw)
		CLOBBER_CALL_CLOBBERED();
}

__attribute__((noinline)) long direct(long a, long b, long c, long d, long e)
{
	f();
	return a + 3 * b + 5 * c + 7 * d + 11 * e;
}

static void (*volatile fptr)(void) = f;

__attribute__((noinline)) long indirect(long a, long b, long c, long d, long e)
{
	fptr();
	return a + 3 * b + 5 * c + 7 * d + 11 * e;
}

int main(void)
{
	long want = 1 + 3 * 2 + 5 * 3 + 7 * 4 + 11 * 5;
	CHECK_EQ(direct(1, 2, 3, 4, 5), want);
	sw = 1;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_is_committed(f), 1);
	CHECK_EQ(direct(1, 2, 3, 4, 5), want);
	CHECK_EQ(indirect(1, 2, 3, 4, 5), want);
	CHECK_EQ(calls, 2);
	CHECK_DONE();
}
