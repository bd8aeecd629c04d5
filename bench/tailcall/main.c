/* SPDX-License-Identifier: MIT */
/* Tail-call sites, calls through a pointer to the generic, and tail calls
 * through a function-pointer switch: every build, in one process. */
#include "harness.h"

#define BUILD(k)                                                  \
	uint64_t k##_warm_tail(long), k##_cold_tail(long);        \
	uint64_t k##_warm_ptr(long), k##_cold_ptr(long);          \
	uint64_t k##_warm_fnptr(long), k##_cold_fnptr(long);      \
	int k##_setup(void);
BUILD(static) BUILD(dyn) BUILD(mvu) BUILD(mvc) BUILD(mviu) BUILD(mvic)

#define CANDS(k, build)                                                              \
	{ "tailcall", "tail call", build, "-", k##_warm_tail, k##_cold_tail, k##_setup }, \
	{ "tailcall", "call via pointer to generic", build, "-", k##_warm_ptr,           \
	  k##_cold_ptr, k##_setup },                                                     \
	{ "tailcall", "tail call via fn-ptr switch", build, "-", k##_warm_fnptr,         \
	  k##_cold_fnptr, k##_setup }

static const struct candidate candidates[] = {
	CANDS(static, "static"),
	CANDS(dyn, "dynamic"),
	CANDS(mvu, "mv-uncommitted"),
	CANDS(mvc, "mv-committed"),
	CANDS(mviu, "mvi-uncommitted"),
	CANDS(mvic, "mvi-committed"),
};

int main(int argc, char **argv)
{
	return harness_main(argc, argv, candidates,
			    sizeof candidates / sizeof candidates[0]);
}
