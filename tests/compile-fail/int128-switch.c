/* SPDX-License-Identifier: MIT */
// expect-error: 'wide' has a 16-byte type '__int128'; a multiverse switch must be 1, 2, 4 or 8 bytes wide
// expect-clang-error: multiverse: switch 'wide' has type '__int128'; a switch must be an integer, enum or bool variable or member, or a function pointer
__attribute__((multiverse)) __int128 wide;
