/* SPDX-License-Identifier: MIT */
/* A padded call site that commit binds by a call, not a copy (the
 * variants call out), jumps over its padding: the first NOP becomes a
 * jump to the call, where the padding is more than one NOP, so that the
 * NOPs do not run.  Revert restores the NOPs byte for byte. */
#include "text.h"
#include "check.h"

__attribute__((multiverse)) int mode;
long count;

__attribute__((noinline)) long helper(long x) { count++; __asm__ volatile(""); return x; }

/* 48-byte sites: several NOPs; 8-byte sites: one NOP before the call */
__attribute__((multiverse("inline", 48))) long wide(long x);
__attribute__((multiverse)) long wide(long x) { return mode ? helper(x) * 2 : helper(x) + 1; }
__attribute__((multiverse("inline", 8))) long narrow(long x);
__attribute__((multiverse)) long narrow(long x) { return mode ? helper(x) * 3 : helper(x) + 2; }

__attribute__((noinline)) long use(long x) { return wide(x) + narrow(x) * 100; }

/* Whether the site of fn starts with a jump to its call. */
static int jumps_over(void *fn, unsigned *pad)
{
	const struct mv_info_site *s = multiverse_info_site(fn, 0);

	CHECK(s != NULL);
	if (!s)
		return -1;
	*pad = s->pad;
	return text_jumps_over_padding(s->addr, s->pad);
}

int main(void)
{
	unsigned pad = 0;

	CHECK_EQ(use(5), 6 + 700);
	CHECK_EQ(jumps_over(wide, &pad), 0);
	CHECK(pad >= 48 - 6);

	mode = 1;
	CHECK_EQ(multiverse_commit(), 2);
	CHECK_EQ(multiverse_info_site(wide, 0)->holds, MULTIVERSE_SITE_CALL);
	CHECK_EQ(multiverse_info_site(narrow, 0)->holds, MULTIVERSE_SITE_CALL);
	CHECK_EQ(jumps_over(wide, &pad), 1);
	CHECK_EQ(jumps_over(narrow, &pad), 0);  /* one NOP: left */
	CHECK_EQ(use(5), 10 + 1500);

	mode = 0;                       /* the other variant: still jumped over */
	CHECK_EQ(multiverse_commit(), 2);
	CHECK_EQ(jumps_over(wide, &pad), 1);
	CHECK_EQ(use(5), 6 + 700);

	CHECK_EQ(multiverse_revert(), 2);
	CHECK_EQ(multiverse_info_site(wide, 0)->holds, MULTIVERSE_SITE_ORIGINAL);
	CHECK_EQ(jumps_over(wide, &pad), 0);
	CHECK_EQ(use(5), 6 + 700);
	CHECK_EQ(count, 8);
	CHECK_EQ(text_diffs(), 0);
	CHECK_DONE();
}
