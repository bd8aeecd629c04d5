/* SPDX-License-Identifier: MIT */
// expect-error: multiverse: 'inline-size' takes a number of bytes from 0 to 64, not '100'
// expect-clang-error: multiverse: 'inline-size' takes a number of bytes from 0 to 64, not '100'
// mvflags: -fplugin-arg-multiverse-inline-size=100
int x;
