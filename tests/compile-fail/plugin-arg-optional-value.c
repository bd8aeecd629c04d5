// expect-error: multiverse: unknown plugin argument 'optional-runtime=yes'; the arguments are 'max-variants=N' and 'optional-runtime'
// expect-clang-error: multiverse: bad plugin argument 'optional-runtime=yes'; the arguments are 'max-variants=N' (1 to 100000) and 'optional-runtime'
// mvflags: -fplugin-arg-multiverse-optional-runtime=yes
int x;
