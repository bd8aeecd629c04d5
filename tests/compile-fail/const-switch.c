/* SPDX-License-Identifier: MIT */
// expect-error: 'fixed' is 'const'; a multiverse switch must be writable
// expect-clang-error: multiverse: switch 'fixed' is const; a switch must be writable
__attribute__((multiverse)) const int fixed = 1;
// expect-fixit: {4:29-4:35}:""
// expect-clang-fixit: {4:29-4:35}:""
