/* SPDX-License-Identifier: MIT */
// Writes to a member switch, or the address of its object, keep it from
// being specialized in that function; other members do not.
// expect-warning: 'set' writes multiverse switch 'cfg.mode'; the switch is not specialized in this function
// expect-warning: 'escape' takes the address of multiverse switch 'cfg.mode'; the switch is not specialized in this function
// expect-warning: 'copy_in' writes multiverse switch 'cfgs[1].inner.level'
// expect-clang-warning: multiverse: 'set' writes switch 'cfg.mode'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'escape' takes the address of switch 'cfg.mode'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'copy_in' writes switch 'cfgs[1].inner.level'
// expect-nothing-else
struct inner { __attribute__((multiverse)) int level; };
struct config { __attribute__((multiverse)) int mode; int count; struct inner inner; };
struct config cfg, cfgs[2];
void use(struct config *);

__attribute__((multiverse)) int set(void) { cfg.mode = 2; return cfg.mode; }
__attribute__((multiverse)) int escape(void) { use(&cfg); return cfg.mode; }
__attribute__((multiverse)) int copy_in(struct inner i) { cfgs[1].inner = i; return cfgs[1].inner.level; }
/* another member: cfg.mode stays a switch here */
__attribute__((multiverse)) int count(void) { cfg.count++; return cfg.mode; }
// expect-note: @11 switch member 'level' declared here
// expect-note: @12 switch member 'mode' declared here
// expect-clang-note: @11 switch member 'level' declared here
// expect-clang-note: @12 switch member 'mode' declared here
