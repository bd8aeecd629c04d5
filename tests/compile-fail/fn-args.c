/* SPDX-License-Identifier: MIT */
// expect-error: 'f': the 'multiverse' attribute takes no arguments on a function but '("inline", N)'
// expect-clang-error: multiverse: a function takes no arguments in the attribute but ("inline", N)
__attribute__((multiverse("tracked"))) void f(void) {}
// expect-fixit: {4:26-4:37}:""
// expect-clang-fixit: {4:16-4:37}:"multiverse"
