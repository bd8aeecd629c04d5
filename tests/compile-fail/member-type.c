// expect-error: 'ratio' has type 'double'; the 'multiverse' attribute is allowed only on functions, on global variables of integer, enum or function-pointer type, and on structure or union members of integer or enum type
// not-with-clang: member switches are not in the Clang plugin yet
struct config { __attribute__((multiverse)) double ratio; };
