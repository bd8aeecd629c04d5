// SPDX-License-Identifier: MIT
// Two units call the same inline functions and template instance; one
// copy of each is kept, and commit binds the calls of both units.
#include "check.h"
#include "shared.h"

namespace cfg {
MULTIVERSE_VALUES(0, 1, 2) int level;
}

__attribute__((noinline)) int this_unit(int x)
{
	Meter m;
	return shared_cost(x) + shared_twice(x) + m.read(x);
}

int main()
{
	CHECK_EQ(this_unit(5), 15);
	CHECK_EQ(other_unit(5), 15);
	cfg::level = 2;
	CHECK_EQ(multiverse_commit(), 3);
	cfg::level = 0;                       // bound
	CHECK_EQ(this_unit(5), 10 + 15 + 4);
	CHECK_EQ(other_unit(5), 10 + 15 + 4);
	CHECK_EQ(multiverse_is_committed(shared_cost), 1);
	CHECK_EQ(multiverse_is_committed(shared_twice<int>), 1);
	CHECK_EQ(multiverse_is_committed(&Meter::read), 1);
	// The sites of the kept copies alone: one call in each unit, one in
	// shared_twice<int>'s generic, one in each of its variants but the
	// one for level 0, which -O0 does not fold (a dropped copy's variants
	// would add theirs).
	const mv_info_fn *twice = multiverse_info_fn(shared_twice<int>);
#ifdef __OPTIMIZE__
	unsigned calling = twice ? twice->n_variants - 1 : 0;
#else
	unsigned calling = twice ? twice->n_variants : 0;
#endif
	const mv_info_fn *f = multiverse_info_fn(shared_cost);
	CHECK(f && !strcmp(f->name, "shared_cost(int)"));
	CHECK(f && f->n_sites == 2 + 1 + calling);
	CHECK_EQ(multiverse_commit(), 3);
	CHECK_EQ(this_unit(5), 15);
	CHECK_EQ(other_unit(5), 15);
	CHECK_DONE();
}
