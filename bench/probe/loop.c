/* SPDX-License-Identifier: MIT */
/* The caller side of the probe benchmark (see probe.h; COMMIT: commit the
 * probe).  The loop calls work() at a call site. */
#include <stdio.h>

#include "probe.h"

#ifdef MULTIVERSE
#include <multiverse.h>
#endif

DEFINE_WARM(call, N(work)(i))
DEFINE_COLD(call, N(work)(i))

int N(setup)(void)
{
#if defined(DYNAMIC) || defined(MULTIVERSE)
	N(probe) = PROBE ? N(hook) : 0;
#endif
#ifdef COMMIT
	if (multiverse_commit_refs(&N(probe)) < 0 || multiverse_is_committed(N(work)) != 1) {
		fprintf(stderr, "commit failed: %s\n", multiverse_last_error());
		return 1;
	}
#endif
	unsigned long before = N(hits)();
	return N(work)(1) != 2 || N(hits)() - before != (PROBE ? 1 : 0);
}
