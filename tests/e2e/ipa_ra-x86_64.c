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
 * generic, GCC 12 at -O2 keeps them in rdi/rsi/rdx/rcx/r8 and this test
 * fails. */
#include "check.h"

__attribute__((multiverse)) int sw;

static int calls;

__attribute__((multiverse)) void f(void)
{
	if (sw)         /* a plain read too: -O0 folds __builtin_constant_p early */
		calls++;
	if (__builtin_constant_p(sw) && sw)
		__asm__ volatile(
			"mov $0xdead, %%eax\n\tmov $0xdead, %%ecx\n\t"
			"mov $0xdead, %%edx\n\tmov $0xdead, %%esi\n\t"
			"mov $0xdead, %%edi\n\tmov $0xdead, %%r8d\n\t"
			"mov $0xdead, %%r9d\n\tmov $0xdead, %%r10d\n\t"
			"mov $0xdead, %%r11d"
			::: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11");
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
