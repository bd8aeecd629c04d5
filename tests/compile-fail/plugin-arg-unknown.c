/* SPDX-License-Identifier: MIT */
// expect-error: multiverse: unknown plugin argument 'max-variant=3'; the arguments are 'max-variants=N' and 'optional-runtime'
// expect-clang-error: multiverse: bad plugin argument 'max-variant=3'; the arguments are 'max-variants=N' (1 to 100000) and 'optional-runtime'
// mvflags: -fplugin-arg-multiverse-max-variant=3
int x;
