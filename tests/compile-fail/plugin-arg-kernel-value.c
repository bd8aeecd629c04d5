/* SPDX-License-Identifier: MIT */
// expect-error: multiverse: 'kernel' takes no value, not 'yes'
// expect-clang-error: multiverse: bad plugin argument 'kernel=yes'; the arguments are 'inline-size=N' (0 to 64), 'max-variants=N' (1 to 100000), 'optional-runtime', 'report[=FILE]', 'report-json[=FILE]' and 'version'
// mvflags: -fplugin-arg-multiverse-kernel=yes
int x;
