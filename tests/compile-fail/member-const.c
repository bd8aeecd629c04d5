/* SPDX-License-Identifier: MIT */
// expect-error: 'mode' is 'const'; a multiverse switch must be writable
// expect-clang-error: multiverse: switch 'mode' is const; a switch must be writable
struct config { __attribute__((multiverse)) const int mode; };
// expect-fixit: {4:45-4:51}:""
// expect-clang-fixit: {4:45-4:51}:""
