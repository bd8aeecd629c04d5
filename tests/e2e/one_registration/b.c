/* SPDX-License-Identifier: MIT */
/* Unit b: another caller, so that three units emit records. */
#include "shared.h"

__attribute__((noinline)) int from_b(int x) { return twice(x) + 200; }
