/* SPDX-License-Identifier: MIT */
// expect-error: 'x' is a function parameter; the 'multiverse' attribute is allowed only on functions
// expect-clang-error: multiverse: 'x' is a function parameter; the attribute applies to functions and global variables only
int f(__attribute__((multiverse)) int x) { return x; }
