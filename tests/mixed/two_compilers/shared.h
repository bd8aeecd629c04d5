/* SPDX-License-Identifier: MIT */
__attribute__((multiverse)) extern int mode;
__attribute__((multiverse)) int from_gcc(int x);
__attribute__((multiverse)) int from_clang(int x);
int call_from_gcc(int x);
int call_from_clang(int x);

/* A function-pointer switch that clang.c defines, called from both:
 * through memory in gcc.c's code, through its stub in clang.c's. */
__attribute__((multiverse)) extern int (*hook)(int);
int plus_one(int x);
int times_ten(int x);
int hook_from_gcc(int x);
int hook_from_clang(int x);
