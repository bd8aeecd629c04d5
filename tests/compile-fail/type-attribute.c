/* SPDX-License-Identifier: MIT */
/* The attribute on a type, not on a declaration. */
struct __attribute__((multiverse)) s { int x; };
struct t { int y; } __attribute__((multiverse));
// expect-error: @3 'struct s': the 'multiverse' attribute is allowed only on functions, and on global variables and structure or union members of integer, enum or function-pointer type; it cannot apply to a type
// expect-error: @4 'struct t': the 'multiverse' attribute is allowed only on functions
// expect-clang-error: @3 multiverse: 's': the attribute applies to functions and global variables only
// expect-clang-error: @4 multiverse: 't': the attribute applies to functions and global variables only
// expect-nothing-else
