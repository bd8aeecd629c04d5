/* SPDX-License-Identifier: MIT */
// expect-error: 'mode': unknown 'multiverse' arguments; allowed are 'multiverse("tracked")' and 'multiverse(("values", V1, V2, ...))' with integer constants
// expect-clang-error: multiverse: "tracked" takes no further arguments
__attribute__((multiverse("tracked", 3))) int mode;
