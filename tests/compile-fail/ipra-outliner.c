/* SPDX-License-Identifier: MIT */
// only-with-clang: LLVM's options
// expect-clang-error: multiverse: '-enable-ipra' and '-enable-machine-outliner' together are not supported: callers could rely on registers a variant clobbers
// mvflags: -mllvm -enable-ipra -mllvm -enable-machine-outliner=always
/* Interprocedural register allocation needs code generated function by
 * function (clang/multiverse.cpp); the outliner compiles all first. */
__attribute__((multiverse)) int sw;
__attribute__((multiverse)) int f(void) { return sw; }
