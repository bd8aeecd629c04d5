/* SPDX-License-Identifier: MIT */
// expect-error: 'hook': a function-pointer switch takes no 'multiverse' arguments
// expect-clang-error: multiverse: 'hook' is a function-pointer switch, which takes no arguments in the attribute
__attribute__((multiverse("tracked"))) void (*hook)(void);
// expect-fixit: {4:26-4:37}:""
// expect-clang-fixit: {4:16-4:37}:"multiverse"
