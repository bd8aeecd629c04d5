/* SPDX-License-Identifier: MIT */
// expect-error: 'hook': a function-pointer switch takes no 'multiverse' arguments but '("inline", N)'
// expect-clang-error: multiverse: 'hook' is a function-pointer switch, which takes no arguments in the attribute but ("inline", N)
__attribute__((multiverse("tracked"))) void (*hook)(void);
// expect-fixit: {4:26-4:37}:""
// expect-clang-fixit: {4:16-4:37}:"multiverse"
