/* SPDX-License-Identifier: MIT */
// expect-error: 'hook': a function-pointer switch takes no 'multiverse' arguments but '("inline", N)'
// expect-clang-error: multiverse: 'hook': ("inline", N) takes one integer constant N from 0 to 64: the bytes of each call site, call included (0: calls are not padded)
/* (GCC's C parser drops the string before a non-constant argument) */
extern int n;
__attribute__((multiverse("inline", n))) void (*hook)(void);
