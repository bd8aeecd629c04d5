/* SPDX-License-Identifier: MIT */
// An x86-64 compiler also compiles for 32-bit pointers (-m32, and -mx32
// with the same instruction set): one error says what is supported, and
// no assembler errors follow.
// mvflags: -m32
// expect-error: 'sw': multiverse supports only 64-bit targets (x86-64 and AArch64, LP64), not this one with 32-bit pointers
// expect-clang-error: multiverse: target 'i386-pc-linux-gnu' is not supported; the Clang plugin supports x86-64 and AArch64 with 64-bit pointers (LP64)
// expect-nothing-else
__attribute__((multiverse)) int sw;
__attribute__((multiverse)) int other;

__attribute__((multiverse)) int f(void)
{
	return sw + other;
}

int g(void)
{
	return f();
}
