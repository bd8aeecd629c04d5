/* SPDX-License-Identifier: MIT */
/* Under retpolines a call through a switch calls the switch's stub, whose
 * retpoline jumps through the pointer (tests/e2e/fnptr_retpoline-x86_64.c).
 * A switch another module may define would be reached through the GOT,
 * a stub the runtime cannot follow under retpolines: refused. */
// mvflags: -fPIC
// mvflags-gcc: -mindirect-branch=thunk
// mvflags-clang: -mretpoline
__attribute__((multiverse)) int (*hook)(int);
int call(int x) { return hook(x); }
// expect-error: @10 this call through multiverse function pointer 'hook' cannot be bound by commit under retpolines, since the switch may be another module's; a call through a switch goes where the last commit bound it, so it must be one the runtime can rewrite
// expect-note: @9 switch 'hook' declared here
// expect-clang-error: @10 multiverse: this call through function-pointer switch 'hook' cannot be bound by commit (under retpolines, since the switch may be another module's); a call through a switch goes where the last commit bound it, so it must be one the runtime can rewrite
// expect-nothing-else
