/* SPDX-License-Identifier: MIT */
// expect-error: 'none': 'multiverse("values", ...)' needs at least one value
// expect-clang-error: multiverse: "values" needs at least one value
__attribute__((multiverse("values"))) int none;
