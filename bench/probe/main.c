/* SPDX-License-Identifier: MIT */
/* A probe off and on, in every build, in one process: its cost against
 * the #ifdef build (no probe; a plain direct call) and the C idiom
 * if (probe) probe(x). */
#include "harness.h"

#define BUILD(k) uint64_t k##_warm_call(long), k##_cold_call(long); int k##_setup(void);
BUILD(static_off) BUILD(static_on) BUILD(dyn_off) BUILD(dyn_on)
BUILD(mvu_off) BUILD(mvu_on) BUILD(mvc_off) BUILD(mvc_on)

#define CAND(k, build, mode) \
	{ "probe", "call of a probed function", build, mode, k##_warm_call, k##_cold_call, k##_setup }

static const struct candidate candidates[] = {
	CAND(static_off, "static", "off"),
	CAND(dyn_off, "dynamic", "off"),
	CAND(mvu_off, "mv-uncommitted", "off"),
	CAND(mvc_off, "mv-committed", "off"),
	CAND(static_on, "static", "on"),
	CAND(dyn_on, "dynamic", "on"),
	CAND(mvu_on, "mv-uncommitted", "on"),
	CAND(mvc_on, "mv-committed", "on"),
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, candidates,
			    sizeof candidates / sizeof candidates[0]);
}
