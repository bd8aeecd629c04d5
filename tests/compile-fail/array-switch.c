// expect-error: 'modes' has type 'int[4]'; the 'multiverse' attribute is allowed only on functions
__attribute__((multiverse)) int modes[4];
