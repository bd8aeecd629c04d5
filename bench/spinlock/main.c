/* SPDX-License-Identifier: MIT */
/* The spinlock benchmark (paper, Figure 1 and Figure 4 left): every build
 * in UP and SMP mode, measured in one process. */
#include "harness.h"

/* What each build's loop.c defines (see the Makefile for the builds). */
#define BUILD(k)                                  \
	uint64_t k##_warm_pair(long), k##_cold_pair(long); \
	int k##_setup(void);
BUILD(static_up) BUILD(static_smp) BUILD(dyn_up) BUILD(dyn_smp)
BUILD(mvu_up) BUILD(mvu_smp) BUILD(mvc_up) BUILD(mvc_smp)
BUILD(mviu_up) BUILD(mviu_smp) BUILD(mvic_up) BUILD(mvic_smp)

#define CAND(k, build, mode) \
	{ "spinlock", "lock+unlock", build, mode, k##_warm_pair, k##_cold_pair, k##_setup }

static const struct candidate candidates[] = {
	CAND(static_up, "static", "UP"),
	CAND(dyn_up, "dynamic", "UP"),
	CAND(mvu_up, "mv-uncommitted", "UP"),
	CAND(mvc_up, "mv-committed", "UP"),
	CAND(mviu_up, "mvi-uncommitted", "UP"),
	CAND(mvic_up, "mvi-committed", "UP"),
	CAND(static_smp, "static", "SMP"),
	CAND(dyn_smp, "dynamic", "SMP"),
	CAND(mvu_smp, "mv-uncommitted", "SMP"),
	CAND(mvc_smp, "mv-committed", "SMP"),
	CAND(mviu_smp, "mvi-uncommitted", "SMP"),
	CAND(mvic_smp, "mvi-committed", "SMP"),
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, candidates,
			    sizeof candidates / sizeof candidates[0]);
}
