// expect-error: 'flag_t': the 'multiverse' attribute is allowed only on functions
typedef int __attribute__((multiverse)) flag_t;
