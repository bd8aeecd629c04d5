/* SPDX-License-Identifier: MIT */
/* Static switches that GCC on its own would drop: one whose only read is
 * dead code and that only main stores to (write-only), and one nothing
 * stores to (read-only).  The descriptors and the runtime use both, so both
 * must be emitted and keep their stores.  Found by tests/fuzz/csmith.py: the
 * first failed to link, with an undefined reference to the switch. */
#include "check.h"

static __attribute__((multiverse("values", 3, 5))) int dead_sw = 3;
static __attribute__((multiverse("values", 7, 9))) int ro_sw = 7;

static __attribute__((multiverse)) int dead_read(int x)
{
	int unused = dead_sw;

	(void)unused;
	return x;
}

static __attribute__((multiverse)) int ro_read(int x)
{
	return x + ro_sw;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 5)
		dead_sw = 5;
	CHECK(multiverse_commit() >= 0);
	CHECK_EQ(multiverse_is_committed(dead_read), 1);
	CHECK_EQ(multiverse_is_committed(ro_read), 1);
	CHECK_EQ(dead_read(argc), argc);
	CHECK_EQ(ro_read(argc), argc + 7);
	CHECK_DONE();
}
