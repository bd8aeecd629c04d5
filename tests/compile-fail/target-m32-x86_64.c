/* SPDX-License-Identifier: MIT */
// -m32 is refused as -mx32 is (target-32bit-x86_64.c), here for a member
// and a function-pointer switch: one error, at the first attribute.
// mvflags: -m32
// expect-error: 'mode': multiverse supports only 64-bit targets (x86-64 and AArch64, LP64), not this one with 32-bit pointers
// expect-clang-error: multiverse: target 'i386-pc-linux-gnu' is not supported; the Clang plugin supports x86-64 and AArch64 with 64-bit pointers (LP64)
// expect-nothing-else
struct config { __attribute__((multiverse)) int mode; };
struct config cfg;
__attribute__((multiverse)) int (*hook)(int);

__attribute__((multiverse)) int run(int x)
{
	return cfg.mode ? hook(x) : x;
}
