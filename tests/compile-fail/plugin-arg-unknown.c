/* SPDX-License-Identifier: MIT */
// expect-error: multiverse: unknown plugin argument 'max-variant=3'; did you mean 'max-variants'? the arguments are 'inline-size=N', 'kernel', 'max-variants=N', 'optional-runtime', 'report[=FILE]', 'report-json[=FILE]' and 'version'
// expect-clang-error: multiverse: bad plugin argument 'max-variant=3'; did you mean 'max-variants'? the arguments are 'inline-size=N' (0 to 64), 'max-variants=N' (1 to 100000), 'optional-runtime', 'report[=FILE]', 'report-json[=FILE]' and 'version'
// mvflags: -fplugin-arg-multiverse-max-variant=3
int x;
