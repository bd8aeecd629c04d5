/* SPDX-License-Identifier: MIT */
// expect-warning: 'big' would need 512 variants, more than the limit of 64 (plugin argument 'max-variants'); only the generic is used
// expect-clang-warning: multiverse: 'big' would need 512 variants, more than the limit of 64 (plugin argument 'max-variants'); only the generic is used
__attribute__((multiverse(("values", 0, 1, 2, 3, 4, 5, 6, 7)))) int s1;
__attribute__((multiverse(("values", 0, 1, 2, 3, 4, 5, 6, 7)))) int s2;
__attribute__((multiverse(("values", 0, 1, 2, 3, 4, 5, 6, 7)))) int s3;
__attribute__((multiverse)) int big(void) { return s1 * 100 + s2 * 10 + s3; }
