/* SPDX-License-Identifier: MIT */
/* The PV-ops benchmark (paper §6.1, Figure 4 right): interrupt
 * disable+enable through each dispatch mechanism, in one process. */
#include "harness.h"

#define BUILD(k)                                  \
	uint64_t k##_warm_pair(long), k##_cold_pair(long); \
	int k##_setup(void);
BUILD(indirect) BUILD(mvu) BUILD(mvc) BUILD(mviu) BUILD(mvic) BUILD(static) BUILD(inline)

#define CAND(k, build) \
	{ "pvops", "irq disable+enable", build, "native", k##_warm_pair, k##_cold_pair, k##_setup }

static const struct candidate candidates[] = {
	CAND(static, "static"),
	CAND(indirect, "indirect"),
	CAND(mvu, "mv-uncommitted"),
	CAND(mvc, "mv-committed"),
	CAND(mviu, "mvi-uncommitted"),
	CAND(mvic, "mvi-committed"),
	CAND(inline, "static-inline"),
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, candidates,
			    sizeof candidates / sizeof candidates[0]);
}
