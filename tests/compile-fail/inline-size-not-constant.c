/* SPDX-License-Identifier: MIT */
// expect-error: 'hook': 'multiverse("inline", N)' takes one integer constant N from 0 to 64: the bytes of each call site, call included (0: calls are not padded)
// expect-clang-error: multiverse: 'hook': ("inline", N) takes one integer constant N from 0 to 64: the bytes of each call site, call included (0: calls are not padded)
extern int n;
__attribute__((multiverse("inline", n))) void (*hook)(void);
