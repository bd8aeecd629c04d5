/* SPDX-License-Identifier: MIT */
// expect-error: 'f': the 'multiverse' attribute takes no arguments on a function
// expect-clang-error: multiverse: a function takes no arguments in the attribute
__attribute__((multiverse("tracked"))) void f(void) {}
// expect-fixit: {4:26-4:37}:""
// expect-clang-fixit: {4:16-4:37}:"multiverse"
