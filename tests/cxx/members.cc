// SPDX-License-Identifier: MIT
// Member functions: const, static, virtual (called through the base),
// a constructor; a switch in a namespace and one that is a static data
// member; commit_fn and is_committed given a member function, and the
// names the runtime reports; multiverse_redirect() given member
// functions of one type, and a static one and a function.
#include "check.h"

namespace cfg {
MULTIVERSE bool fast;
}

struct Shape {
	virtual int area(int x) = 0;
	virtual ~Shape() {}
};

struct Square : Shape {
	MULTIVERSE int area(int x) override { return cfg::fast ? x * x : -1; }
};

struct Widget {
	static MULTIVERSE int level;
	int base;
	MULTIVERSE explicit Widget(int b) : base(level > 1 ? b * 10 : b) {}
	MULTIVERSE int cost(int x) const { return cfg::fast ? x * base : x + base; }
	MULTIVERSE static int scale(int x) { return level > 1 ? x << level : x; }
	int cost_v2(int x) const { return 1000 + x; }   // a new version
};
int scale_v2(int x) { return -x; }
int Widget::level;

__attribute__((noinline)) int use(const Widget &w, Shape &s, int x)
{
	return w.cost(x) + Widget::scale(x) + s.area(x);
}

int main()
{
	Square sq;
	Shape *s = OPAQUE(&sq);
	Widget w(3);
	CHECK_EQ(use(w, *s, 2), 5 + 2 - 1);          // generic code

	cfg::fast = true;
	Widget::level = 2;
	CHECK_EQ(multiverse_commit(), 4);             // the functions changed
	CHECK_EQ(multiverse_is_committed(&Widget::cost), 1);
	CHECK_EQ(multiverse_is_committed(&Widget::scale), 1);
	// a virtual member function's pointer names no one function
	CHECK_EQ(multiverse_is_committed(&Square::area), -22);
	cfg::fast = false;                            // bound: no effect yet
	Widget::level = 0;
	CHECK_EQ(use(w, *s, 2), 6 + 8 + 4);
	CHECK_EQ(Widget(4).base, 40);

	CHECK_EQ(multiverse_commit_fn(&Widget::cost), 1);   // this one only
	CHECK_EQ(use(w, *s, 2), 5 + 8 + 4);
	CHECK_EQ(multiverse_commit(), 3);             // cost was already
	CHECK_EQ(use(w, *s, 2), 5 + 2 - 1);
	CHECK_EQ(Widget(4).base, 4);

	const mv_info_fn *f = multiverse_info_fn(&Widget::cost);
	CHECK(f && !strcmp(f->name, "Widget::cost(int) const"));
	const mv_info_site *site = multiverse_info_site(&Widget::cost, 0);
	CHECK(f && f->n_sites && site && site->holds != MULTIVERSE_SITE_ORIGINAL);
	CHECK(f && !multiverse_info_site(&Widget::cost, f->n_sites));
	const mv_info_var *v = multiverse_info_var(&cfg::fast);
	CHECK(v && !strcmp(v->name, "cfg::fast"));
	v = multiverse_info_var(&Widget::level);
	CHECK(v && !strcmp(v->name, "Widget::level"));

	CHECK_EQ(multiverse_redirect(&Widget::cost, &Widget::cost_v2), 0);
	CHECK_EQ(multiverse_redirect(&Widget::scale, scale_v2), 0);
	CHECK_EQ(use(w, *s, 2), 1002 - 2 - 1);
	CHECK(multiverse_info_fn(&Widget::cost)->redirect != nullptr);
	CHECK_EQ(multiverse_redirect(&Widget::cost, nullptr), 0);
	CHECK_EQ(multiverse_redirect(&Widget::scale, nullptr), 0);
	CHECK_EQ(use(w, *s, 2), 5 + 2 - 1);

	CHECK(multiverse_revert() >= 0);
	CHECK_EQ(multiverse_is_committed(&Widget::cost), 0);
	CHECK_DONE();
}
