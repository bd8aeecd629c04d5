// expect-error: 'cfg' has type 'struct config'; the 'multiverse' attribute is allowed only on functions
struct config { int a; };
__attribute__((multiverse)) struct config cfg;
