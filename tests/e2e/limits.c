/* SPDX-License-Identifier: MIT */
/* A function over the variant cap keeps only its generic (the build warns,
 * see compile-fail/too-many-variants.c); a function that writes a switch is
 * not specialized for it.  Both stay correct. */
#include "check.h"

__attribute__((multiverse(("values", 0, 1, 2, 3, 4, 5, 6, 7)))) int s1;
__attribute__((multiverse(("values", 0, 1, 2, 3, 4, 5, 6, 7)))) int s2;
__attribute__((multiverse(("values", 0, 1, 2, 3, 4, 5, 6, 7)))) int s3;
__attribute__((multiverse)) int counter_sw;
__attribute__((multiverse)) int other;

__attribute__((multiverse)) int big(void) { return s1 * 100 + s2 * 10 + s3; }

__attribute__((multiverse)) int bump(void)
{
	counter_sw++;
	return other ? counter_sw : -counter_sw;
}

static __attribute__((multiverse)) int hidden_sw;
static __attribute__((multiverse)) int hidden(void) { return hidden_sw + 40; }
__attribute__((noinline)) int call_hidden(void) { return hidden(); }

int main(void)
{
	s1 = 1; s2 = 2; s3 = 3;
	other = 1;
	hidden_sw = 2;
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(big), 0);
	CHECK_EQ(big(), 123);
	s3 = 4;
	CHECK_EQ(big(), 124);

	CHECK_EQ(multiverse_is_committed(bump), 1);   /* bound for other only */
	CHECK_EQ(bump(), 1);
	CHECK_EQ(bump(), 2);

	CHECK_EQ(multiverse_is_committed(hidden), 0); /* 2 is not in {0, 1} */
	CHECK_EQ(call_hidden(), 42);
	hidden_sw = 1;
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(hidden), 1);
	hidden_sw = 0;
	CHECK_EQ(call_hidden(), 41);
	CHECK_DONE();
}
