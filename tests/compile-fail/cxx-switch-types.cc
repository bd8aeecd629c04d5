/* SPDX-License-Identifier: MIT */
// What C++ adds that cannot be a switch, with each compiler's words: a
// pointer to member, a reference, an object of class type, a thread_local
// variable or static data member, and a variable template.
// expect-error: @18 'member_ptr' has type 'int S::*'; the 'multiverse' attribute is allowed only on functions
// expect-error: @20 'ref' has type 'int&'; the 'multiverse' attribute is allowed only on functions
// expect-error: @21 'object' has type 'S'; the 'multiverse' attribute is allowed only on functions
// expect-error: @22 'per_thread' is thread-local; the 'multiverse' attribute is allowed only on functions
// expect-error: @23 'tvar' has type 'T'; the 'multiverse' attribute is allowed only on functions
// expect-error: @24 'W::s' is thread-local; the 'multiverse' attribute is allowed only on functions
// expect-clang-error: @18 multiverse: switch 'member_ptr' has type 'int S::*'; a switch must be an integer, enum or bool variable or member, or a function pointer
// expect-clang-error: @20 multiverse: switch 'ref' has type 'int &'; a switch must be an integer
// expect-clang-error: @21 multiverse: switch 'object' has type 'S'; a switch must be an integer
// expect-clang-error: @22 multiverse: 'per_thread' is thread-local; a switch must be a global variable with one value for the whole program
// expect-clang-error: @23 multiverse: switch 'tvar' has type 'T'; a switch must be an integer
// expect-clang-error: @24 multiverse: 'W::s' is thread-local; a switch must be a global variable
struct S { int x; };
__attribute__((multiverse)) int S::*member_ptr;
int target;
__attribute__((multiverse)) int &ref = target;
__attribute__((multiverse)) S object;
__attribute__((multiverse)) thread_local int per_thread;
template <typename T> __attribute__((multiverse)) T tvar;
struct W { __attribute__((multiverse)) static thread_local int s; };
