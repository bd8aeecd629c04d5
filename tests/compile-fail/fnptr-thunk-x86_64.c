/* SPDX-License-Identifier: MIT */
// not-with-clang: GCC's -mindirect-branch; Clang's retpolines are fnptr-retpoline-x86_64.c
/* Under -mindirect-branch=thunk GCC keeps the call indirect through its
 * thunk: the warning, and a note at the switch. */
// mvflags: -mindirect-branch=thunk
__attribute__((multiverse)) int (*hook)(int);
int call(int x) { return hook(x); }
// expect-warning: @7 this call through multiverse function pointer 'hook' cannot be made patchable; it stays indirect after commit
// expect-note: @6 switch 'hook' declared here
// expect-nothing-else
