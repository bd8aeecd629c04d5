// expect-error: multiverse: unknown plugin argument 'max-variant'; the only argument is 'max-variants=N'
// mvflags: -fplugin-arg-multiverse-max-variant=3
int x;
