/*
 * Fault injection, for the test suite only: the runtime built with
 * -DMV_FAULTS (build/libmultiverse-faults.a) can be told to make the N-th
 * text write, sync, open of the writer or allocation fail, once or from
 * then on (tests/faults/).  In the real runtime every hook is a constant
 * 0 and costs nothing.
 */
#ifndef MV_FAULT_H
#define MV_FAULT_H

enum mv_fault_kind { MV_FAULT_WRITE, MV_FAULT_SYNC, MV_FAULT_OPEN, MV_FAULT_ALLOC,
		     MV_FAULT_KINDS };

#ifdef MV_FAULTS
#include <stddef.h>

int mv_fault(enum mv_fault_kind kind);   /* 1: this call must fail */
void *mv_fault_malloc(size_t n);
void *mv_fault_calloc(size_t n, size_t size);
void *mv_fault_realloc(void *p, size_t n);
#define malloc(n) mv_fault_malloc(n)
#define calloc(n, s) mv_fault_calloc(n, s)
#define realloc(p, n) mv_fault_realloc(p, n)
#else
#define mv_fault(kind) 0
#endif

#endif
