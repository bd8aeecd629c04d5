/* SPDX-License-Identifier: MIT */
// expect-error: 'width': value 300 does not fit the type 'unsigned char' of the switch
// expect-clang-error: multiverse: 'width': value 300 does not fit the type 'unsigned char' of the switch
struct config { __attribute__((multiverse("values", 8, 300))) unsigned char width; };
