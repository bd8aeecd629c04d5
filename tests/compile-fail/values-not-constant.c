/* SPDX-License-Identifier: MIT */
// expect-error: 'level': unknown 'multiverse' arguments; allowed are 'multiverse("tracked")' and 'multiverse(("values", V1, V2, ...))' with integer constants 'V1, V2, ...'
// expect-clang-error: multiverse: a value of "values" must be an integer constant
int x;
__attribute__((multiverse(("values", 1, x)))) int level;
