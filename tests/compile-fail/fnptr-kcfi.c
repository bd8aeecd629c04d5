/* SPDX-License-Identifier: MIT */
// only-with-clang: Clang's stubs for calls through switches (clang/fnptr.cpp)
// expect-clang-warning: multiverse: this call through function-pointer switch 'hook' cannot be made patchable (it carries a check of the pointer, from -fsanitize=kcfi or pointer authentication); it stays indirect after commit
// expect-nothing-else
// mvflags: -fsanitize=kcfi
/* A checked indirect call stays one: a stub would skip the check. */
__attribute__((multiverse)) int (*hook)(int);
int call(int x) { return hook(x); }
