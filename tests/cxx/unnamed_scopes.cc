// SPDX-License-Identifier: MIT
// The attribute where C++ gives a function no name of its own: a lambda
// (generic or not; in a function, in another lambda, generic or not, in
// a template's instance), a member and a constructor of a local class
// (in a function or a generic lambda), a member of an unnamed class, and
// of one a typedef names.  Each is multiversed and
// committed like any other, and named as GCC names it, whichever
// compiler built it.
// needs: -std=c++14
#include "check.h"

MULTIVERSE bool on;

struct {
	MULTIVERSE int f(int x) { return on ? x + 7 : x; }
} unnamed;

#ifdef __clang__
#pragma clang diagnostic ignored "-Wnon-c-typedef-for-linkage"
#endif
// named for linkage by the typedef, which follows its members
typedef struct {
	MULTIVERSE int g(int x) { return on ? x + 8 : x; }
} Named;

template <class T> __attribute__((noinline)) T thrice(T x)
{
	auto l = [](T v) MULTIVERSE { return on ? v * 3 : v; };
	return l(x);
}

struct S {
	__attribute__((noinline)) long m(int y) const
	{
		auto outer = [](int a) {
			auto inner = [](long b) MULTIVERSE { return on ? b + 100 : b; };
			return inner(a);
		};
		return outer(y);
	}
};

template <class F, class T> __attribute__((noinline)) T call(F f, T x) { return f(x); }

// every name, as the runtime reports it
static const char *const names[] = {
	"<unnamed struct>::f(int)",
	"Named::g(int)",
	"main()::<lambda(int)>::operator()",
	"main()::<lambda(auto:1)>::operator()<int>",
	"main()::<lambda(auto:1)>::operator()<long int>",
	"main()::Local::Local(int)",
	"main()::Local::f(int) const",
	"thrice<int>(int)::<lambda(int)>::operator()",
	"thrice<long int>(long int)::<lambda(long int)>::operator()",
	"S::m(int) const::<lambda(int)>::<lambda(long int)>::operator()",
	// auto:N counts the unit's invented template parameters, as GCC does
	"main()::<lambda(auto:2)>::<lambda(int)>::operator()",
	"main()::<lambda(auto:3)>::L::f(int) [with auto:3 = int]",
};

int main()
{
	auto twice = [](int x) MULTIVERSE { return on ? 2 * x : x; };
	auto neg = [](auto x) MULTIVERSE { return on ? -x : x; };
	struct Local {
		int base;
		MULTIVERSE explicit Local(int b) : base(on ? b * 10 : b) {}
		MULTIVERSE int f(int x) const { return on ? x + base : x; }
	};
	Named named;
	auto outer = [](auto x) {
		auto inner = [](int v) MULTIVERSE { return on ? v + 1 : v; };
		return inner(x);
	};
	auto outer2 = [](auto x) {
		struct L {
			MULTIVERSE static int f(int v) { return on ? v + 2 : v; }
		};
		return L::f(x);
	};

	CHECK_EQ(call(twice, 5), 5);
	CHECK_EQ(call(neg, 5), 5);
	CHECK_EQ(call(neg, 5L), 5);
	CHECK_EQ(Local(2).f(1), 1);
	CHECK_EQ(unnamed.f(1), 1);
	CHECK_EQ(named.g(1), 1);
	CHECK_EQ(thrice(2) + thrice(2L), 4);
	CHECK_EQ(S().m(1), 1);
	CHECK_EQ(outer(1) + outer2(1), 2);

	on = true;
	CHECK_EQ(multiverse_commit(), 12);
	on = false;                                   // bound: no effect yet
	CHECK_EQ(call(twice, 5), 10);
	CHECK_EQ(call(neg, 5), -5);
	CHECK_EQ(call(neg, 5L), -5);
	CHECK_EQ(Local(2).f(1), 21);
	CHECK_EQ(unnamed.f(1), 8);
	CHECK_EQ(named.g(1), 9);
	CHECK_EQ(thrice(2) + thrice(2L), 12);
	CHECK_EQ(S().m(1), 101);
	CHECK_EQ(outer(1) + outer2(1), 5);

	CHECK_EQ(multiverse_is_committed(&decltype(twice)::operator()), 1);
	const mv_info_fn *f = multiverse_info_fn(&decltype(neg)::operator()<long>);
	CHECK(f && !strcmp(f->name, "main()::<lambda(auto:1)>::operator()<long int>"));
	f = multiverse_info_fn(&Local::f);
	CHECK(f && !strcmp(f->name, "main()::Local::f(int) const"));

	char *dump = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&dump, &len);
	multiverse_dump_info(out);
	fclose(out);
	for (const char *name : names) {
		char line[200];
		snprintf(line, sizeof line, "function %s at ", name);
		if (!strstr(dump, line))
			fprintf(stderr, "no function '%s'\n", name);
		CHECK(strstr(dump, line));
	}
	free(dump);

	CHECK(multiverse_revert() >= 0);
	CHECK_EQ(call(twice, 5), 5);
	CHECK_EQ(Local(2).f(1), 1);
	CHECK_EQ(S().m(1), 1);
	CHECK_DONE();
}
