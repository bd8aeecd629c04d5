/* SPDX-License-Identifier: MIT */
/* Built by multiverse-clang: a multiversed function on the switch that
 * gcc.c defines, call sites of gcc.c's function, and a function-pointer
 * switch. */
#include "shared.h"

__attribute__((multiverse)) int from_clang(int x) { return mode ? x * 5 : x + 5; }

__attribute__((noinline)) int call_from_gcc(int x) { return from_gcc(x) + 2000; }

int plus_one(int x) { return x + 1; }
int times_ten(int x) { return x * 10; }

__attribute__((multiverse)) int (*hook)(int) = plus_one;

__attribute__((noinline)) int hook_from_clang(int x) { return hook(x) + 2000; }
