// expect-error: 'f': the 'multiverse' attribute takes no arguments on a function
__attribute__((multiverse("tracked"))) void f(void) {}
