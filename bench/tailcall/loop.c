/* SPDX-License-Identifier: MIT */
/* The caller side of the tail-call benchmark (see fn.h; COMMIT: commit
 * the switches).  The wrappers are NOIPA in every build, so the loop
 * calls them as real calls and they tail-call (jmp) on. */
#include <stdio.h>

#include "fn.h"

#ifdef MULTIVERSE
#include <multiverse.h>
#endif

NOIPA int N(tail_work)(int x) { return N(work)(x); }

#ifdef STATIC
NOIPA int N(tail_op)(int x) { return N(target)(x); }
#else
NOIPA int N(tail_op)(int x) { return N(op)(x); }
#endif

/* volatile: the compiler must load the pointer and call through it. */
int (*volatile N(work_ptr))(int) = N(work);

DEFINE_WARM(tail, N(tail_work)((int)i))
DEFINE_COLD(tail, N(tail_work)((int)i))
DEFINE_WARM(ptr, N(work_ptr)((int)i))
DEFINE_COLD(ptr, N(work_ptr)((int)i))
DEFINE_WARM(fnptr, N(tail_op)((int)i))
DEFINE_COLD(fnptr, N(tail_op)((int)i))

int N(setup)(void)
{
#ifdef COMMIT
	if (multiverse_commit_refs(&N(tracing)) < 0 ||
	    multiverse_commit_fn(&N(op)) < 0 ||
	    multiverse_is_committed(N(work)) != 1 ||
	    multiverse_is_committed(&N(op)) != 1) {
		fprintf(stderr, "commit failed: %s\n", multiverse_last_error());
		return 1;
	}
#endif
	return N(tail_work)(1) != 2 || N(work_ptr)(1) != 2 || N(tail_op)(1) != 3 ||
	       N(traced)() != 0;
}
