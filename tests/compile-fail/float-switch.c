/* SPDX-License-Identifier: MIT */
// expect-error: 'ratio' has type 'float'; the 'multiverse' attribute is allowed only on functions, and on global variables and structure or union members of integer, enum or function-pointer type
// expect-clang-error: multiverse: switch 'ratio' has type 'float'; a switch must be an integer, enum or bool variable or member, or a function pointer
__attribute__((multiverse)) float ratio;
