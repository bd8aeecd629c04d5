/* SPDX-License-Identifier: MIT */
/* The large code model calls a switch's stub through a register, and the
 * stub's own jump is the site commit rewrites
 * (tests/e2e/fnptr_large-x86_64.c).  A switch another module may define
 * is reached through the GOT, a jump commit cannot rewrite: refused. */
// mvflags: -fPIC -mcmodel=large
__attribute__((multiverse)) int (*hook)(int);
int call(int x) { return hook(x); }
// expect-error: @8 this call through multiverse function pointer 'hook' cannot be bound by commit under -mcmodel=large, since the switch may be another module's; a call through a switch goes where the last commit bound it, so it must be one the runtime can rewrite
// expect-note: @7 switch 'hook' declared here
// expect-clang-error: @8 multiverse: this call through function-pointer switch 'hook' cannot be bound by commit (under -mcmodel=large, since the switch may be another module's); a call through a switch goes where the last commit bound it, so it must be one the runtime can rewrite
// expect-nothing-else
