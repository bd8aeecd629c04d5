/* SPDX-License-Identifier: MIT */
// expect-error: multiverse: 'max-variants' takes a number from 1 to 100000, not '0x'
// expect-clang-error: multiverse: bad plugin argument 'max-variants=0x'; the arguments are 'inline-size=N' (0 to 64), 'max-variants=N' (1 to 100000), 'optional-runtime', 'report[=FILE]', 'report-json[=FILE]' and 'version'
// mvflags: -fplugin-arg-multiverse-max-variants=0x
int x;
