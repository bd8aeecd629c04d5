/* SPDX-License-Identifier: MIT */
// expect-error: 'mode' is a bit-field; a multiverse switch member must be a whole integer, enum or 'bool' member, with an address of its own
// expect-clang-error: multiverse: 'mode' is a bit-field; a switch member must be a whole integer, enum or bool member, with an address of its own
struct config { __attribute__((multiverse)) unsigned mode : 3; int other; };
