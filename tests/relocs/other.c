/* SPDX-License-Identifier: MIT */
/* A multiversed function of the program that main.c's sites reach
 * across files: its records cannot hold it as a distance in a PIE. */
#include <multiverse.h>

extern __attribute__((multiverse)) int mode;
__attribute__((multiverse, noinline)) int other_f(int x) { return mode ? x + 100 : x; }
