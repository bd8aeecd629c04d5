/* SPDX-License-Identifier: MIT */
/* A C switch statement on a switch variable: dense cases (a jump table in
 * the generic, a constant in each variant), sparse cases, an enum switch
 * and a switch variable read inside a case of a switch on an argument. */
#include "torture.h"

enum backend { BE_NONE, BE_PIO, BE_MMIO, BE_DMA, BE_VIRTIO, BE_SRIOV, BE_LAST };

__attribute__((multiverse)) enum backend backend;
__attribute__((multiverse)) int level;

__attribute__((multiverse)) int io_cost(int n)
{
	switch (backend) {
	case BE_NONE:   return 0;
	case BE_PIO:    return n * 100;
	case BE_MMIO:   return n * 10;
	case BE_DMA:    return n + 50;
	case BE_VIRTIO: return n + 20;
	case BE_SRIOV:  return n;
	default:        return -1;
	}
}

/* Integer switch: its domain comes from the case labels. */
__attribute__((multiverse)) int sparse(int x)
{
	switch (level) {
	case 3:    return x + 3;
	case 100:  return x * 100;
	case 7000: return x - 7000;
	default:   return x;
	}
}

__attribute__((multiverse)) int dispatch(int op, int x)
{
	switch (op) {
	case 0: return x;
	case 1: return level == 3 ? x * 2 : x;
	case 2: switch (backend) { case BE_DMA: return 1; default: return 2; }
	case 3: return x + 3;
	case 4: return x + 4;
	case 5: return x + 5;
	default: return -x;
	}
}

static int expect_sparse(int l, int x)
{
	return l == 3 ? x + 3 : l == 100 ? x * 100 : l == 7000 ? x - 7000 : x;
}

static void check_all(enum backend b, int l)
{
	static const int cost[] = { 0, 500, 50, 55, 25, 5 };
	int (*p)(int) = OPAQUE(&io_cost);

	CHECK_EQ(io_cost(5), cost[b]);
	CHECK_EQ(p(5), cost[b]);
	CHECK_EQ(sparse(9), expect_sparse(l, 9));
	CHECK_EQ(dispatch(1, 4), l == 3 ? 8 : 4);
	CHECK_EQ(dispatch(2, 0), b == BE_DMA ? 1 : 2);
	CHECK_EQ(dispatch(5, 1), 6);
}

int main(void)
{
	static const int levels[] = { 0, 1, 3, 100, 7000 };
	int b, i, in_domain;

	for (b = BE_NONE; b < BE_LAST; b++)
		for (i = 0; i < (int)(sizeof levels / sizeof levels[0]); i++) {
			backend = (enum backend)b;
			level = levels[i];
			in_domain = level <= 3;
			CHECK(multiverse_commit() >= 0);
			CHECK_COMMITTED(io_cost);
			CHECK_COMMITTED(sparse);
			/* dispatch compares level only with 3: for other
			 * values it has no variant and its generic keeps
			 * reading the switches. */
			if (in_domain) {
				CHECK_COMMITTED(dispatch);
				backend = BE_LAST;
				level = -5;
			} else {
				CHECK_EQ(multiverse_is_committed(dispatch), 0);
			}
			check_all((enum backend)b, levels[i]);
		}
	CHECK_EQ(multiverse_revert(), 2);     /* dispatch was on its generic */
	backend = BE_MMIO;
	level = 100;
	check_all(BE_MMIO, 100);
	CHECK_DONE();
}
