/* SPDX-License-Identifier: MIT */
/* Frames built at run time: alloca and VLAs sized by a switch, a GNU
 * nested function called directly and through a trampoline (taking its
 * address needs an executable stack), and inline asm with register, memory
 * and clobber operands, including a read of the switch as an asm input.
 * mvflags: -Wl,-z,execstack
 * (Clang has no nested functions: with it, the rest.)
 */
#include <alloca.h>
#include "torture.h"

__attribute__((multiverse)) int wide;

__attribute__((noinline)) static long fill(unsigned char *p, int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++) {
		p[i] = (unsigned char)i;
		s += p[i];
	}
	return s;
}

__attribute__((multiverse)) long with_alloca(int n)
{
	unsigned char *p = alloca(wide ? 2 * n : n);

	return fill(p, wide ? 2 * n : n);
}

__attribute__((multiverse)) long with_vla(int n)
{
	unsigned char buf[wide ? n * 3 : n];
	long big[wide + 1][n];

	big[wide][n - 1] = fill(buf, (int)sizeof buf);
	return big[wide][n - 1] + (long)sizeof big;
}

#ifndef __clang__
static int apply(int (*f)(int), int x) { return f(x); }

__attribute__((multiverse)) int with_nested(int k)
{
	int bias = wide ? 100 : 1;
	int add(int x) { return x + k + bias; }

	return add(1) + apply(add, 2);     /* the second goes through a trampoline */
}
#endif

__attribute__((multiverse)) int with_asm(int x)
{
	int r;
	int mem = 5;

	__asm__("leal (%1,%2), %0" : "=r"(r) : "r"(x), "r"(wide) );
	__asm__ volatile("addl %1, %0" : "+m"(mem) : "ri"(wide ? 10 : 20) : "cc");
	return r + mem;
}

static long tri(int n) { return (long)n * (n - 1) / 2; }

static void check_all(int w)
{
	CHECK_EQ(with_alloca(10), tri(w ? 20 : 10));
	CHECK_EQ(with_vla(8), tri(w ? 24 : 8) + (long)sizeof(long) * 8 * (w + 1));
#ifndef __clang__
	CHECK_EQ(with_nested(3), w ? 104 + 105 : 5 + 6);
#endif
	CHECK_EQ(with_asm(7), 7 + w + 5 + (w ? 10 : 20));
}

int main(void)
{
	int w;

	for (w = 0; w < 2; w++) {
		wide = w;
		check_all(w);
		CHECK(multiverse_commit() >= 0);
		wide = !w;
		CHECK_COMMITTED(with_alloca);
		CHECK_COMMITTED(with_vla);
#ifndef __clang__
		CHECK_COMMITTED(with_nested);
#endif
		CHECK_COMMITTED(with_asm);
		check_all(w);
		CHECK(multiverse_revert() >= 3);
	}
	CHECK_DONE();
}
