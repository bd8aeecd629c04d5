/* SPDX-License-Identifier: MIT */
// expect-warning: 'big' would need 512 variants, more than the limit of 64 (plugin argument 'max-variants'); only the generic is used
// expect-clang-warning: multiverse: 'big' would need 512 variants, more than the limit of 64 (plugin argument 'max-variants'); only the generic is used
__attribute__((multiverse(("values", 0, 1, 2, 3, 4, 5, 6, 7)))) int s1;
__attribute__((multiverse(("values", 0, 1, 2, 3, 4, 5, 6, 7)))) int s2;
__attribute__((multiverse(("values", 0, 1, 2, 3, 4, 5, 6, 7)))) int s3;
__attribute__((multiverse)) int big(void) { return s1 * 100 + s2 * 10 + s3; }
// expect-note: @4 switch 's1', declared here, has 8 values in 'big'
// expect-note: @6 switch 's3', declared here, has 8 values in 'big'
// expect-note: @7 raise the limit with '-fplugin-arg-multiverse-max-variants=512', or give a switch fewer values with 'multiverse(("values", ...))'
