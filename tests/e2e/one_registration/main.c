/* SPDX-License-Identifier: MIT */
/* Every unit that emits records also emits the module's constructor and
 * destructor, in one COMDAT group, of which the linker keeps one copy:
 * the runtime hears of the module once at start-up and once at exit,
 * not once per unit (three, here). */
#define _GNU_SOURCE
#include "check.h"
#include "registrations.h"
#include "shared.h"

__attribute__((noinline)) static int from_main(int x) { return twice(x); }

int main(void)
{
	CHECK_EQ(registered, REGISTRATIONS);
	mode = 1;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(from_main(5), 10);
	CHECK_EQ(from_a(5), 110);
	CHECK_EQ(from_b(5), 210);
	const struct mv_info_fn *fi = multiverse_info_fn(twice);
	CHECK(fi && fi->n_sites >= 1);
	mode = 0;
	CHECK_EQ(from_b(5), 210);       /* committed: mode is not read */
	CHECK_EQ(multiverse_revert(), 1);
	CHECK_EQ(from_b(5), 211);
	CHECK_DONE();
}
