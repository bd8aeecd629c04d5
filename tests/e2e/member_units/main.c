/* SPDX-License-Identifier: MIT */
/* Unit 3: commits; the switches of the objects of unit 1 are known by
 * name and address. */
#include "check.h"
#include "config.h"

int main(void)
{
	const struct mv_info_var *vi = multiverse_info_var(&per_cpu[1].lim.depth);
	CHECK(vi && !strcmp(vi->name, "per_cpu[1].lim.depth") && vi->width == 2);
	vi = multiverse_info_var(&sched.policy);
	CHECK(vi && !strcmp(vi->name, "sched.policy") && vi->n_functions == 1);
	CHECK(multiverse_info_var(&sched.ticks) == NULL);

	CHECK_EQ(schedule(1), 18);
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(schedule), 1);
	sched.policy = POLICY_FIFO;
	sched.lim.depth = 64;
	CHECK_EQ(schedule(1), 18);
	CHECK_EQ(sched.ticks, 2);
	CHECK_EQ(multiverse_commit_refs(&sched.lim.depth), 1);
	CHECK_EQ(schedule(1), 65);

	CHECK_EQ(cpu1_depth(), 0);
	per_cpu[1].lim.depth = 64;
	CHECK_EQ(multiverse_commit_refs(&per_cpu[1].lim.depth), 1);
	per_cpu[1].lim.depth = 16;
	CHECK_EQ(cpu1_depth(), 1);
	CHECK(multiverse_revert() >= 2);
	CHECK_EQ(cpu1_depth(), 0);
	CHECK_DONE();
}
