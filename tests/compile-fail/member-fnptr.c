// expect-error: 'hook' is a function-pointer member; member switches of function-pointer type are not supported yet: use a global function-pointer switch
// not-with-clang: member switches are not in the Clang plugin yet
struct ops { __attribute__((multiverse)) int (*hook)(int); };
