/* SPDX-License-Identifier: MIT */
/* Built by multiverse-gcc: the switch, one multiversed function, and
 * call sites of the other compiler's function. */
#include "shared.h"

__attribute__((multiverse)) int mode;

__attribute__((multiverse)) int from_gcc(int x) { return mode ? x * 3 : x + 3; }

__attribute__((noinline)) int call_from_clang(int x) { return from_clang(x) + 1000; }

__attribute__((noinline)) int hook_from_gcc(int x) { return hook(x) + 1000; }
