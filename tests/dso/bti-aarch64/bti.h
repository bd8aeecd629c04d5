/* SPDX-License-Identifier: MIT */
#include <multiverse.h>

extern int bti_mode;
int bti_twice(int x);
int bti_a(int x);
int bti_b(int x);
