// expect-error: 'width': value 300 does not fit the type 'unsigned char' of the switch
// not-with-clang: member switches are not in the Clang plugin yet
struct config { __attribute__((multiverse("values", 8, 300))) unsigned char width; };
