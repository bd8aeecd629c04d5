// expect-error: 'ratio' has type 'float'; the 'multiverse' attribute is allowed only on functions and on global variables of integer, enum or function-pointer type
__attribute__((multiverse)) float ratio;
