/* SPDX-License-Identifier: MIT */
/* Nothing close to suggest: the list of arguments only. */
// expect-error: multiverse: unknown plugin argument 'frobnicate'; the arguments are 'kernel', 'max-variants=N'
// expect-clang-error: multiverse: bad plugin argument 'frobnicate'; the arguments are 'max-variants=N'
// mvflags: -fplugin-arg-multiverse-frobnicate
int x;
