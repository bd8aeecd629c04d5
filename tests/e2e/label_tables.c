/* SPDX-License-Identifier: MIT */
/* Computed goto in multiversed functions: each variant must jump to its
 * own labels, never into the generic's code.  The automatic table is
 * rebuilt on each call, so every compiler's copies take their own label
 * addresses.  The constant static table is copied per variant by the
 * Clang front end; GCC cannot copy such a body and keeps the generic
 * (with a warning, tests/compile-fail/label-table-static.c). */
// mvflags: -w
#include "check.h"

__attribute__((multiverse)) int fast;

static const unsigned char prog[] = { 1, 1, 2, 1, 0 };   /* inc inc dbl inc halt */

__attribute__((multiverse)) int automatic(const unsigned char *code)
{
	void *tbl[3];
	int acc = 0;

	tbl[0] = &&op_halt;
	tbl[1] = &&op_inc;
	tbl[2] = &&op_dbl;
	goto *tbl[*code++];
op_inc:
	acc += fast ? 10 : 1;
	goto *tbl[*code++];
op_dbl:
	acc *= 2;
	goto *tbl[*code++];
op_halt:
	return acc;
}

__attribute__((multiverse)) int constant(const unsigned char *code)
{
	static void *const tbl[] = { &&op_halt, &&op_inc, &&op_dbl };
	int acc = 0;

	goto *tbl[*code++];
op_inc:
	acc += fast ? 10 : 1;
	goto *tbl[*code++];
op_dbl:
	acc *= 2;
	goto *tbl[*code++];
op_halt:
	return acc;
}

#ifdef __clang__
#define CONSTANT_COMMITTED 1
#else
#define CONSTANT_COMMITTED 0
#endif

int main(void)
{
	for (int f = 0; f < 2; f++) {
		int want = f ? 50 : 5;
		fast = f;
		CHECK_EQ(automatic(prog), want);
		CHECK_EQ(constant(prog), want);
		CHECK(multiverse_commit() >= 1);
		CHECK_EQ(multiverse_is_committed(automatic), 1);
		CHECK_EQ(multiverse_is_committed(constant), CONSTANT_COMMITTED);
		fast = !f;                    /* bound: the variants run */
		CHECK_EQ(automatic(prog), want);
		CHECK_EQ(constant(prog), CONSTANT_COMMITTED ? want : (f ? 5 : 50));
		CHECK(multiverse_revert() >= 1);
		CHECK_EQ(automatic(prog), f ? 5 : 50);
	}
	CHECK_DONE();
}
