/* SPDX-License-Identifier: MIT */
// expect-error: 'hook' is a packed function-pointer member; a multiverse function-pointer switch must be aligned to its size
// expect-clang-error: multiverse: 'hook' is a packed function-pointer member; a function-pointer switch must be aligned to its size
struct ops {
	char tag;
	__attribute__((multiverse)) int (*hook)(int);
} __attribute__((packed));
struct ops ops;
