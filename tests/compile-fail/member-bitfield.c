// expect-error: 'mode' is a bit-field; a multiverse switch member must be a whole integer, enum or 'bool' member, with an address of its own
// not-with-clang: member switches are not in the Clang plugin yet
struct config { __attribute__((multiverse)) unsigned mode : 3; int other; };
