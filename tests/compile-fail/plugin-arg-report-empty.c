/* SPDX-License-Identifier: MIT */
// expect-error: multiverse: 'report=' needs a file name
// expect-clang-error: multiverse: 'report=' needs a file name
// mvflags: -fplugin-arg-multiverse-report=
int x;
