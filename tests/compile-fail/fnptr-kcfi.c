/* SPDX-License-Identifier: MIT */
// only-with-clang: GCC 12 has no -fsanitize=kcfi
// expect-clang-error: multiverse: this call through function-pointer switch 'hook' cannot be bound by commit (it carries a check of the pointer, from -fsanitize=kcfi or pointer authentication); a call through a switch goes where the last commit bound it, so it must be one the runtime can rewrite
// expect-nothing-else
// mvflags: -fsanitize=kcfi
/* A checked indirect call stays one: a stub would skip the check, and an
 * unchecked call would bypass what the user asked for. */
__attribute__((multiverse)) int (*hook)(int);
int call(int x) { return hook(x); }
