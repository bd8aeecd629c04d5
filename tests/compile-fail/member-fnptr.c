// expect-error: 'hook' is a function-pointer member; member switches of function-pointer type are not supported yet: use a global function-pointer switch
// expect-clang-error: multiverse: 'hook' is a function-pointer member; member switches of function-pointer type are not supported yet: use a global function-pointer switch
struct ops { __attribute__((multiverse)) int (*hook)(int); };
