// expect-error: multiverse: 'max-variants' takes a number from 1 to 100000, not '0x'
// mvflags: -fplugin-arg-multiverse-max-variants=0x
int x;
