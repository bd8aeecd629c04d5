/* SPDX-License-Identifier: MIT */
/* Unit 2: reads the members of the objects of unit 1. */
#include "config.h"

MULTIVERSE int schedule(int x)
{
	sched.ticks++;    /* another member: does not keep the others dynamic */
	int r = sched.policy == POLICY_RR ? x * 2 : x;
	return r + sched.lim.depth;
}

MULTIVERSE int cpu1_depth(void)
{
	return per_cpu[1].lim.depth == 64 ? 1 : 0;
}
