/* SPDX-License-Identifier: MIT */
// only-with-clang: GCC knows each function by its declaration, Clang's IR by a symbol CodeGen numbers
// What the Clang plugin cannot name, and refuses rather than multiverse
// another function: a lambda (generic or not), a member of a local class,
// a member of an unnamed class.
// expect-clang-error: @16 multiverse: 'main()::(anonymous class)::operator()(int) const' is in a lambda, a local class or an unnamed class; the Clang plugin multiverses functions and switches at namespace or named class scope only
// expect-clang-error: @17 multiverse: 'main()::(anonymous class)::operator()(auto) const' is in a lambda
// expect-clang-error: @19 multiverse: 'main()::Local::f(int)' is in a lambda
// expect-clang-error: @24 multiverse: '(anonymous struct)::f(int)' is in a lambda
// expect-nothing-else
__attribute__((multiverse)) bool on;

int main()
{
	auto a = [](int x) { return x; };
	auto b = [](int x) __attribute__((multiverse)) { return on ? x : 0; };
	auto c = [](auto x) __attribute__((multiverse)) { return on ? x : 0; };
	struct Local {
		__attribute__((multiverse)) int f(int x) { return on ? x : 1; }
	};
	return a(1) + b(1) + c(1) + Local().f(1);
}

struct { __attribute__((multiverse)) int f(int x) { return on ? x : 2; } } unnamed;
