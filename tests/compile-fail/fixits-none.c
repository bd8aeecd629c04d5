/* SPDX-License-Identifier: MIT */
/* No fix-it where the text does not say which token to edit alone. */
typedef const unsigned flags_t;
struct cfg { const int version; flags_t mode __attribute__((multiverse)); };
const int a __attribute__((multiverse)), b = 2;
static __thread int c __attribute__((multiverse)), d;
#define MV(x) __attribute__((multiverse(x)))
__attribute__((multiverse("tracked"))) int s; MV("tracked") void f(void) {}
#define TLS __thread
__thread int ty; __attribute__((multiverse)) TLS int tx;
#pragma clang attribute push (__attribute__((always_inline)), apply_to = function)
int helper(void) { return 1; }
__attribute__((multiverse)) inline int g(void) { return helper(); }
#pragma clang attribute pop
int use(void) { return g(); }
const int e1 __attribute__((multiverse)) = 1, f1 = 2;
__thread int g1 __attribute__((multiverse)) = 1, h1 = 2;
#define CI \
	const int
__attribute__((multiverse)) CI x;
typedef const int cint;
__attribute__((multiverse))
#if 1
cint
#else
const int
#endif
y;
typedef int always_inline;
__attribute__((always_inline)) inline int k(always_inline);
__attribute__((multiverse)) inline int k(always_inline) { return 0; }
// expect-error: @4 'mode' is 'const'
// expect-error: @5 'a' is 'const'
// expect-error: @6 'c' is thread-local
// expect-error: @8 'f': the 'multiverse' attribute takes no arguments on a function but '("inline", N)'
// expect-error: @10 'tx' is thread-local
// expect-clang-error: @4 multiverse: switch 'mode' is const
// expect-clang-error: @5 multiverse: switch 'a' is const
// expect-clang-error: @6 multiverse: 'c' is thread-local
// expect-clang-error: @8 multiverse: a function takes no arguments in the attribute
// expect-clang-error: @10 multiverse: 'tx' is thread-local
// expect-clang-error: @13 multiverse: 'g' is 'always_inline'
// expect-error: @16 'e1' is 'const'
// expect-error: @17 'g1' is thread-local
// expect-error: @20 'x' is 'const'
// expect-error: @28 'y' is 'const'
// expect-error: @31 'k' is 'always_inline'
// expect-clang-error: @16 multiverse: switch 'e1' is const
// expect-clang-error: @17 multiverse: 'g1' is thread-local
// expect-clang-error: @20 multiverse: switch 'x' is const
// expect-clang-error: @28 multiverse: switch 'y' is const
// expect-clang-error: @31 multiverse: 'k' is 'always_inline'
// Clang's always_inline is on the declaration before: removed there.
// expect-clang-fixit: {30:16-30:29}:""
// expect-clang-warning: @31 omitting the parameter name in a function definition is a C23 extension
// expect-nothing-else
