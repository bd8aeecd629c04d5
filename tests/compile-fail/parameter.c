// expect-error: 'x' is a function parameter; the 'multiverse' attribute is allowed only on functions
int f(__attribute__((multiverse)) int x) { return x; }
