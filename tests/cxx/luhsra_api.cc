// SPDX-License-Identifier: MIT
// The original implementation's API from C++: its records, as C++ names
// the functions, and -1 for errors.
#define MULTIVERSE_LUHSRA_API
#include "check.h"

#ifdef __MULTIVERSE__      // the header-plain test builds it without the plugin
#define MULTIVERSE __attribute__((multiverse))
#else
#define MULTIVERSE
#endif

namespace cfg {
MULTIVERSE bool fast;
MULTIVERSE int speed(int x) { return fast ? x * 2 : x; }
}
int plain;

int main()
{
	mv_info_fn *f = multiverse_info_fn((void *)&cfg::speed);
	CHECK(f && !strcmp(f->name, "cfg::speed(int)"));
	CHECK(f && f->n_mv_functions == 2 && f->active_mvfn == nullptr);
	mv_info_var *v = multiverse_info_var(&cfg::fast);
	CHECK(v && !strcmp(v->name, "cfg::fast") && v->functions_head && v->functions_head->fn == f);
	cfg::fast = true;
	CHECK_EQ(multiverse_commit_info_refs(v), 1);
	cfg::fast = false;
	CHECK_EQ(cfg::speed(3), 6);
	CHECK(f && f->active_mvfn);              // the record follows the commit
	CHECK(multiverse_info_fn((void *)&cfg::speed) == f);
	CHECK_EQ(multiverse_revert_info_fn(f), 1);
	CHECK(f && !f->active_mvfn);
	CHECK_EQ(multiverse_commit_refs(&plain), -1);
	multiverse_dump_info();
	CHECK_DONE();
}
