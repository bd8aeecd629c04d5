/* SPDX-License-Identifier: MIT */
// expect-error: multiverse: 'optional-runtime' takes no value, not 'yes'
// expect-clang-error: multiverse: 'optional-runtime' takes no value, not 'yes'
// mvflags: -fplugin-arg-multiverse-optional-runtime=yes
int x;
