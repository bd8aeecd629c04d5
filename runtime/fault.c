/* SPDX-License-Identifier: MIT */
/*
 * The fault injector of fault.h.  The test arms one kind of fault with
 * __multiverse_fault(kind, n, persist): the n-th call of that kind from
 * then on fails, and with persist every later one too.
 * __multiverse_fault_no_inline(1) makes commits bind every site with a
 * branch, as if no body were small enough to inline.
 */
#ifdef MV_FAULTS

#include "internal.h"

static long countdown[MV_FAULT_KINDS], calls[MV_FAULT_KINDS];
static int persist[MV_FAULT_KINDS], failing[MV_FAULT_KINDS];
static int no_inline;

MV_API void __multiverse_fault(int kind, long n, int keep_failing)
{
	countdown[kind] = n;
	calls[kind] = 0;
	persist[kind] = keep_failing;
	failing[kind] = 0;
}

/* How many calls of the kind were made since it was armed. */
MV_API long __multiverse_fault_calls(int kind)
{
	return calls[kind];
}

MV_API void __multiverse_fault_no_inline(int on)
{
	no_inline = on;
}

int mv_fault_no_inline(void)
{
	return no_inline;
}

int mv_fault(enum mv_fault_kind kind)
{
	calls[kind]++;
	if (failing[kind])
		return 1;
	if (countdown[kind] > 0 && --countdown[kind] == 0) {
		failing[kind] = persist[kind];
		return 1;
	}
	return 0;
}

#undef malloc
#undef calloc
#undef realloc

void *mv_fault_malloc(size_t n)
{
	return mv_fault(MV_FAULT_ALLOC) ? NULL : malloc(n);
}

void *mv_fault_calloc(size_t n, size_t size)
{
	return mv_fault(MV_FAULT_ALLOC) ? NULL : calloc(n, size);
}

void *mv_fault_realloc(void *p, size_t n)
{
	return mv_fault(MV_FAULT_ALLOC) ? NULL : realloc(p, n);
}
#endif
