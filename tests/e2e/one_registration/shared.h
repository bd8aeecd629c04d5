/* SPDX-License-Identifier: MIT */
#include <multiverse.h>

extern MULTIVERSE int mode;
MULTIVERSE int twice(int x);
int from_a(int x);
int from_b(int x);
