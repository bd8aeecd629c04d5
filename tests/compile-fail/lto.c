/* SPDX-License-Identifier: MIT */
// expect-error: multiverse: '-flto' is not supported
// expect-clang-error: multiverse: '-flto' is not supported
// mvflags: -flto
__attribute__((multiverse)) int sw;
