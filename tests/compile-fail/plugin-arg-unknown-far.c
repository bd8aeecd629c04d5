/* SPDX-License-Identifier: MIT */
/* Nothing close to suggest: the list of arguments only. */
// expect-error: multiverse: unknown plugin argument 'frobnicate'; the arguments are 'inline-size=N', 'kernel', 'max-variants=N'
// expect-clang-error: multiverse: bad plugin argument 'frobnicate'; the arguments are 'inline-size=N' (0 to 64), 'max-variants=N'
// mvflags: -fplugin-arg-multiverse-frobnicate
int x;
