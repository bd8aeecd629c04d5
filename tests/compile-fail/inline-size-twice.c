/* SPDX-License-Identifier: MIT */
// expect-error: 'f': 'multiverse("inline", N)' takes one integer constant N from 0 to 64: the bytes of each call site, call included (0: calls are not padded)
// expect-clang-error: multiverse: 'f': ("inline", N) takes one integer constant N from 0 to 64: the bytes of each call site, call included (0: calls are not padded)
__attribute__((multiverse("inline", 8, 16))) void f(void) {}
