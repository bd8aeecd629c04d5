// expect-error: 'field' is a structure or union member; the 'multiverse' attribute is allowed only on functions
// expect-clang-error: multiverse: 'field' is a structure or union member; the attribute applies to functions and global variables only
struct s { __attribute__((multiverse)) int field; };
