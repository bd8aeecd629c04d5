/* SPDX-License-Identifier: MIT */
// expect-error: 'ai' is 'always_inline'; a multiversed function is never inlined, so that commit can redirect every call to it
// expect-clang-error: multiverse: 'ai' is 'always_inline'; a multiversed function is never inlined, so that commit can redirect every call to it
__attribute__((multiverse)) int sw;
__attribute__((always_inline)) inline int ai(void);
__attribute__((multiverse)) inline int ai(void) { return sw; }
int use(void) { return ai(); }
