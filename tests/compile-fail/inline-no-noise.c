/* SPDX-License-Identifier: MIT */
// expect-warning: 'set' writes multiverse switch 'sw'
// expect-nothing-else
// expect-clang-warning: multiverse: 'set' writes switch 'sw'; the switch is not specialized in this function
// Inline variation points compile without attribute warnings; the one
// expected warning keeps this a warnings-only test.
// mvflags: -Wall -Wextra
__attribute__((multiverse)) int sw;
__attribute__((multiverse)) static inline int get(void) { return sw; }
__attribute__((multiverse)) inline int get2(void) { return sw; }
__attribute__((multiverse)) int set(void) { return sw = 2; }
int use(void) { return get() + get2(); }
// expect-note: @8 switch 'sw' declared here
// expect-clang-note: @8 switch 'sw' declared here
