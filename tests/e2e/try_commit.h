/* SPDX-License-Identifier: MIT */
/* TRY(fn, var, val, bound): sets switch var to val, commits fn, and checks
 * that fn binds a variant iff bound, and that the bound code returns
 * what the generic returned (tests/e2e/domains.c, domain_rules.c). */
#ifndef MV_TEST_TRY_COMMIT_H
#define MV_TEST_TRY_COMMIT_H
#include "check.h"

#define TRY(fn, var, val, bound) do { \
	CHECK(multiverse_revert() >= 0); \
	var = (val); \
	long long want = (long long)OPAQUE(&fn)(); \
	CHECK(multiverse_commit_fn(fn) >= 0); \
	if (multiverse_is_committed(fn) != (bound)) { \
		fprintf(stderr, "%s with %s = %lld: committed %d, want %d\n", \
			#fn, #var, (long long)(val), multiverse_is_committed(fn), bound); \
		check_failures++; \
	} \
	CHECK_EQ(OPAQUE(&fn)(), want); \
} while (0)

#endif
