/* SPDX-License-Identifier: MIT */
// expect-error: 'ai' is 'always_inline'; a multiversed function is never inlined, so that commit can redirect every call to it
// expect-clang-error: multiverse: 'ai' is 'always_inline'; a multiversed function is never inlined, so that commit can redirect every call to it
__attribute__((multiverse)) int sw;
__attribute__((always_inline)) inline int ai(void);
__attribute__((multiverse)) inline int ai(void) { return sw; }
int use(void) { return ai(); }
// The always_inline is on the first declaration: GCC's plugin, which
// does not see where, offers no fix; Clang's removes it there.
// expect-clang-fixit: {5:16-5:29}:""
