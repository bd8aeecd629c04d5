/* SPDX-License-Identifier: MIT */
// expect-warning: 'f' would need 3 variants, more than the limit of 2 (plugin argument 'max-variants'); only the generic is used
// expect-clang-warning: multiverse: 'f' would need 3 variants, more than the limit of 2 (plugin argument 'max-variants'); only the generic is used
// mvflags: -fplugin-arg-multiverse-max-variants=2
enum e { A, B, C };
__attribute__((multiverse)) enum e sw;
__attribute__((multiverse)) int f(void) { return sw == B; }
