/* SPDX-License-Identifier: MIT */
/* Variants whose bodies are identical after optimization are merged into
 * one body with a widened guard. */
#include "check.h"

__attribute__((multiverse)) int a;
__attribute__((multiverse)) int b;
enum level { OFF, LOW, MID, HIGH };
__attribute__((multiverse)) enum level lvl;

/* Figure 2 of the paper: for a == 0 the value of b does not matter. */
__attribute__((multiverse)) int multi(void)
{
	if (a)
		return b ? 3 : 2;
	return 1;
}

/* Only HIGH differs. */
__attribute__((multiverse)) int high(void) { return lvl == HIGH ? 10 : 20; }

int main(void)
{
	const struct mv_info_fn *fi = multiverse_info_fn(multi);
	CHECK(fi != NULL);
#ifdef __OPTIMIZE__
	if (fi)
		CHECK_EQ(fi->n_variants, 3);
	fi = multiverse_info_fn(high);
	if (fi)
		CHECK_EQ(fi->n_variants, 2);
#else
	if (fi)
		CHECK_EQ(fi->n_variants, 4);
#endif
	for (int x = 0; x <= 1; x++)
		for (int y = 0; y <= 1; y++) {
			a = x;
			b = y;
			CHECK(multiverse_commit() >= 0);
			CHECK_EQ(multiverse_is_committed(multi), 1);
			a = !x;
			CHECK_EQ(multi(), x ? (y ? 3 : 2) : 1);
		}
	for (int l = OFF; l <= HIGH; l++) {
		lvl = l;
		CHECK(multiverse_commit() >= 0);
		CHECK_EQ(multiverse_is_committed(high), 1);
		lvl = OFF;
		CHECK_EQ(high(), l == HIGH ? 10 : 20);
	}
	CHECK_DONE();
}
