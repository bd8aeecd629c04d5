// expect-error: 'hook': a function-pointer switch takes no 'multiverse' arguments
__attribute__((multiverse("tracked"))) void (*hook)(void);
