// expect-error: multiverse: unknown plugin argument 'max-variant'; the only argument is 'max-variants=N'
// expect-clang-error: multiverse: bad plugin argument 'max-variant=3'; the only argument is 'max-variants=N' (1 to 100000)
// mvflags: -fplugin-arg-multiverse-max-variant=3
int x;
