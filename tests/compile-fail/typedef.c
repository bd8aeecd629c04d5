/* SPDX-License-Identifier: MIT */
// expect-error: 'flag_t': the 'multiverse' attribute is allowed only on functions
// expect-clang-error: multiverse: 'flag_t': the attribute applies to functions and global variables only
typedef int __attribute__((multiverse)) flag_t;
