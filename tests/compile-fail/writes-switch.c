/* SPDX-License-Identifier: MIT */
// expect-warning: 'bump' writes multiverse switch 'counter'; the switch is not specialized in this function
// expect-warning: 'peek' takes the address of multiverse switch 'mode'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'bump' writes switch 'counter'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'peek' takes the address of switch 'mode'; the switch is not specialized in this function
// expect-warning: 'later' writes multiverse switch 'counter'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'later' writes switch 'counter'; the switch is not specialized in this function
// expect-nothing-else
__attribute__((multiverse)) int counter;
__attribute__((multiverse)) int mode;
__attribute__((multiverse)) int bump(void) { return counter++; }
void use(int *p);
__attribute__((multiverse)) int peek(void) { use(&mode); return mode; }

/* Neither is inside a multiversed function: no warning. */
int *const where = &mode;
void reset(void) { counter = 0; }

/* Declared first without the attribute. */
int later(void);
__attribute__((multiverse)) int later(void) { return counter += 2; }
// Each warning's note points at the switch's declaration.
// expect-note: @9 switch 'counter' declared here
// expect-note: @10 switch 'mode' declared here
// expect-clang-note: @9 switch 'counter' declared here
// expect-clang-note: @10 switch 'mode' declared here
