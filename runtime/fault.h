/* SPDX-License-Identifier: MIT */
/*
 * Fault injection, for the test suite only: the runtime built with
 * -DMV_FAULTS (build/libmultiverse-faults.a) can be told to make the N-th
 * text write, sync, open of the writer, allocation or signal that stops a
 * thread fail, once or from then on (tests/faults/); or make the N-th batch
 * that was put in address order by its areas' places (poke.c) be sorted
 * instead, as if one had no place.  It can also be told
 * never to inline a body at a call site, so that a test can choose which
 * protocol its changes take on AArch64.  In the real runtime every hook
 * is a constant 0 and costs nothing.
 */
#ifndef MV_FAULT_H
#define MV_FAULT_H

enum mv_fault_kind { MV_FAULT_WRITE, MV_FAULT_SYNC, MV_FAULT_OPEN, MV_FAULT_ALLOC,
		     MV_FAULT_STOP, MV_FAULT_PLACE, MV_FAULT_KINDS };

#ifdef MV_FAULTS

int mv_fault(enum mv_fault_kind kind);   /* 1: this call must fail */
int mv_fault_no_inline(void);            /* 1: bind sites by branches only */
void *mv_fault_malloc(size_t n);
void *mv_fault_calloc(size_t n, size_t size);
void *mv_fault_realloc(void *p, size_t n);
#define malloc(n) mv_fault_malloc(n)
#define calloc(n, s) mv_fault_calloc(n, s)
#define realloc(p, n) mv_fault_realloc(p, n)
#else
#define mv_fault(kind) 0
#define mv_fault_no_inline() 0
#endif

#endif
