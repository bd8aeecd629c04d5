/* SPDX-License-Identifier: MIT */
/* Unit a: the switch and the multiversed function. */
#include "shared.h"

int mode;
int twice(int x) { return mode ? x + x : 2 * x + 1; }
__attribute__((noinline)) int from_a(int x) { return twice(x) + 100; }
