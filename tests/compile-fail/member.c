// expect-error: 'field' is a structure or union member; the 'multiverse' attribute is allowed only on functions
struct s { __attribute__((multiverse)) int field; };
