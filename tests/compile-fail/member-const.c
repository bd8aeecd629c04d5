// expect-error: 'mode' is 'const'; a multiverse switch must be writable
// not-with-clang: member switches are not in the Clang plugin yet
struct config { __attribute__((multiverse)) const int mode; };
