/* SPDX-License-Identifier: MIT */
// expect-error: 'per_thread' is thread-local; the 'multiverse' attribute is allowed only on functions
// expect-clang-error: multiverse: 'per_thread' is thread-local; a switch must be a global variable with one value for the whole program
__attribute__((multiverse)) _Thread_local int per_thread;
// expect-fixit: {4:29-4:43}:""
// expect-clang-fixit: {4:29-4:43}:""
