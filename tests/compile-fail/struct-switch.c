/* SPDX-License-Identifier: MIT */
// expect-error: 'cfg' has type 'struct config'; the 'multiverse' attribute is allowed only on functions
// expect-clang-error: multiverse: switch 'cfg' has type 'struct config'; a switch must be an integer, enum or bool variable or member, or a function pointer
struct config { int a; };
__attribute__((multiverse)) struct config cfg;
