/* SPDX-License-Identifier: MIT */
// expect-error: 'hook': a function-pointer switch takes no 'multiverse' arguments but '("inline", N)'
// expect-clang-error: multiverse: 'hook' is a function-pointer switch, which takes no arguments in the attribute but ("inline", N)
struct ops { __attribute__((multiverse("tracked"))) int (*hook)(int); };
struct ops ops;
