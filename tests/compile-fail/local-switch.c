/* SPDX-License-Identifier: MIT */
// expect-error: 'local' is a local variable; the 'multiverse' attribute is allowed only on functions
// expect-error: 'counter' is a local variable
// expect-clang-error: multiverse: 'local' is a local variable; only global variables can be switches
// expect-clang-error: multiverse: 'counter' is a local variable; only global variables can be switches
int f(void)
{
	__attribute__((multiverse)) int local = 1;
	static __attribute__((multiverse)) int counter;
	return local + counter;
}
