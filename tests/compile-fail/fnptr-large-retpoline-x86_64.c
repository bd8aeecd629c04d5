/* SPDX-License-Identifier: MIT */
// only-with-clang: GCC refuses -mindirect-branch=thunk with -mcmodel=large itself
/* Under -mcmodel=large the call reaches the switch's stub through a
 * register, and commit binds the stub's own jump; with retpolines that
 * jump goes through a retpoline, which commit cannot rewrite: refused. */
// mvflags: -fno-pie -mcmodel=large -mretpoline
__attribute__((multiverse)) int (*hook)(int);
int call(int x) { return hook(x); }
// expect-clang-error: @8 multiverse: this call through function-pointer switch 'hook' cannot be bound by commit (under -mcmodel=large with retpolines); a call through a switch goes where the last commit bound it, so it must be one the runtime can rewrite
// expect-nothing-else
