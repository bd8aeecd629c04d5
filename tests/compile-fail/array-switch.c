/* SPDX-License-Identifier: MIT */
// expect-error: 'modes' has type 'int[4]'; the 'multiverse' attribute is allowed only on functions
// expect-clang-error: multiverse: switch 'modes' has type 'int[4]'; a switch must be an integer, enum or bool variable or member, or a function pointer
__attribute__((multiverse)) int modes[4];
