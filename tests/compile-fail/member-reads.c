/* SPDX-License-Identifier: MIT */
// Reads of a member switch that cannot be specialized, each told once.
// expect-warning: 'by_pointer' reads multiverse switch member 'mode' of 'struct config' through a pointer, which may or may not point to an object with static storage duration; only a read that names an object with static storage duration, with constant array indices, is specialized
// expect-warning: 'by_index' reads multiverse switch member 'mode' of 'struct config' at an array index known only at run time
// expect-warning: 'per_thread' reads multiverse switch member 'mode' of 'struct config' of a thread-local object
// expect-clang-warning: multiverse: 'by_pointer' reads switch member 'mode' of 'struct config' through a pointer, which may or may not point to an object with static storage duration; only a read that names an object with static storage duration, with constant array indices, is specialized
// expect-clang-warning: multiverse: 'by_index' reads switch member 'mode' of 'struct config' at an array index known only at run time
// expect-clang-warning: multiverse: 'per_thread' reads switch member 'mode' of 'struct config' of a thread-local object
// expect-nothing-else
struct config { __attribute__((multiverse)) int mode; };
struct config cfgs[4];
__thread struct config mine;

__attribute__((multiverse)) int by_pointer(struct config *p) { return p->mode + p->mode; }
__attribute__((multiverse)) int by_index(int i) { return cfgs[i].mode + cfgs[1].mode; }
__attribute__((multiverse)) int per_thread(void) { return mine.mode; }
/* a local object is not a switch, and nothing to tell */
__attribute__((multiverse)) int local(void) { struct config c = cfgs[0]; return c.mode; }
// expect-note: @10 switch member 'mode' declared here
// expect-clang-note: @10 switch member 'mode' declared here
