/* SPDX-License-Identifier: MIT */
/* Padding cannot put a branch out of reach.  On AArch64 a tbz or tbnz
 * reaches 32 KiB; far() branches on one bit of its argument over 600
 * calls padded to 64 bytes each (38 KiB), so the compiler either pads
 * them and makes its branches reach, or does not pad that function's
 * calls.  Either way it compiles and computes the same committed and
 * not, and near()'s call, in a small function, stays padded. */
#include "check.h"

__attribute__((multiverse)) int mode;
long total;

__attribute__((multiverse("inline", 64))) void add(long x);
__attribute__((multiverse)) void add(long x) { total += mode ? x : 2 * x; }

#define C10(x) add(x); add(x); add(x); add(x); add(x); add(x); add(x); add(x); add(x); add(x);
#define C100(x) C10(x) C10(x) C10(x) C10(x) C10(x) C10(x) C10(x) C10(x) C10(x) C10(x)

__attribute__((noinline)) void far(long bits)
{
	if (bits & 4) {
		C100(1) C100(2) C100(3) C100(4) C100(5) C100(6)
	}
	if (bits & 8)
		total = -total;
}

__attribute__((noinline)) void near(long x)
{
	add(x);
}

static long run(long bits)
{
	total = 0;
	far(bits);
	near(1000);
	return total;
}

/* add()'s sites; near()'s is padded, and far()'s all are or none is */
static int sites(void)
{
	const struct mv_info_site *s;
	int n = 0, padded = 0, near_padded = 0;

	for (; (s = multiverse_info_site(add, n)); n++) {
		padded += s->pad > 0;
		if ((char *)s->addr >= (char *)near && (char *)s->addr < (char *)near + 128)
			near_padded = s->pad > 0;
	}
	CHECK(near_padded);
	CHECK(padded == 1 || padded == n);
	return n;
}

int main(void)
{
	long one = 100 * (1 + 2 + 3 + 4 + 5 + 6);

	CHECK_EQ(run(4), 2 * one + 2000);
	CHECK_EQ(run(12), -2 * one + 2000);
	CHECK_EQ(run(0), 2000);
	CHECK_EQ(sites(), 601);
	mode = 1;
	CHECK(multiverse_commit() > 0);
	CHECK_EQ(run(4), one + 1000);
	CHECK_EQ(run(12), -one + 1000);
	CHECK_EQ(run(0), 1000);
	CHECK(multiverse_revert() > 0);
	CHECK_EQ(run(4), one + 1000);
	mode = 0;
	CHECK_EQ(run(4), 2 * one + 2000);
	CHECK_DONE();
}
