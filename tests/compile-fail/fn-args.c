/* SPDX-License-Identifier: MIT */
// expect-error: 'f': the 'multiverse' attribute takes no arguments on a function
// expect-clang-error: multiverse: a function takes no arguments in the attribute
__attribute__((multiverse("tracked"))) void f(void) {}
