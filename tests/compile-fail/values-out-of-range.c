// expect-error: 'small': value 300 does not fit the type 'unsigned char' of the switch
__attribute__((multiverse(("values", 1, 300)))) unsigned char small;
