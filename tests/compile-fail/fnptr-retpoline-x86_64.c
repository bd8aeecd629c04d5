/* SPDX-License-Identifier: MIT */
// only-with-clang: Clang's stubs for calls through switches (clang/fnptr.cpp)
// expect-clang-warning: multiverse: this call through function-pointer switch 'hook' cannot be made patchable (retpolines keep indirect calls indirect); it stays indirect after commit
// expect-nothing-else
// mvflags: -mretpoline
/* Under retpolines a stub's plain indirect jump would undo them. */
__attribute__((multiverse)) int (*hook)(int);
int call(int x) { return hook(x); }
