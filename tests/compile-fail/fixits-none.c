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
// expect-error: @4 'mode' is 'const'
// expect-error: @5 'a' is 'const'
// expect-error: @6 'c' is thread-local
// expect-error: @8 'f': the 'multiverse' attribute takes no arguments on a function
// expect-error: @10 'tx' is thread-local
// expect-clang-error: @4 multiverse: switch 'mode' is const
// expect-clang-error: @5 multiverse: switch 'a' is const
// expect-clang-error: @6 multiverse: 'c' is thread-local
// expect-clang-error: @8 multiverse: a function takes no arguments in the attribute
// expect-clang-error: @10 multiverse: 'tx' is thread-local
// expect-clang-error: @13 multiverse: 'g' is 'always_inline'
// expect-nothing-else
