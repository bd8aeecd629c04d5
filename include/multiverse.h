/*
 * Multiverse: compiler-assisted dynamic variability for C.
 *
 * Mark rarely-changing global switches and the functions that read them with
 * __attribute__((multiverse)); the GCC plugin compiles one specialized
 * variant of each function per combination of switch values.  These calls
 * bind the switches by patching the code:
 *
 *     multiverse int config_smp;
 *     multiverse void spin_irq_lock(void) { if (config_smp) ... }
 *
 *     config_smp = 1;
 *     multiverse_commit();     // every call now reaches the SMP variant
 *
 * Return values: commit and revert calls return the number of functions
 * (and function-pointer switches) whose active code changed, or a negative
 * errno value on error, in which case multiverse_last_error() says why and
 * the message was also written to stderr.  Text is never left half-patched:
 * a call site that does not hold the instruction the runtime expects is
 * skipped and reported, never written.
 *
 * Commit and revert are safe while other threads run the code being
 * patched (docs/patching.md).  Do not call them from signal handlers.
 */
#ifndef MULTIVERSE_H
#define MULTIVERSE_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the run-time tables.  Commit calls it on first use; calling it
 * again is harmless.  Returns 0 or a negative errno value. */
int multiverse_init(void);

/* Bind every multiversed function and function-pointer switch to the
 * current values of the switches.  These calls, and those below, return
 * how many functions and function-pointer switches now lead calls
 * elsewhere than before, or a negative errno value. */
int multiverse_commit(void);
/* Restore all patched code to its original bytes. */
int multiverse_revert(void);

/* The same, restricted to the functions that read the switch at var (or to
 * the call sites of the function-pointer switch at var). */
int multiverse_commit_refs(void *var);
int multiverse_revert_refs(void *var);

/* The same for one function, given its address, or for one
 * function-pointer switch, given the switch's address. */
int multiverse_commit_fn(void *fn);
int multiverse_revert_fn(void *fn);

/* Spellings from the EuroSys'19 paper. */
#define multiverse_commit_func multiverse_commit_fn
#define multiverse_revert_func multiverse_revert_fn

/* 1 if fn (or the function-pointer switch at fn) is bound to a variant,
 * 0 if the generic code runs, negative errno if fn is not multiversed.
 * After a commit, 0 means no variant matched the switches' values. */
int multiverse_is_committed(void *fn);

/* state 1 binds the switch at var, 0 unbinds it, -1 only queries.
 * Returns the (new) state, or a negative errno value.  Switches declared
 * multiverse("tracked") start unbound, all others bound.  Commit treats an
 * unbound switch as unknown: it selects a variant that reads it at run
 * time, or the generic.  Takes effect at the next commit. */
int multiverse_bind(void *var, int state);

/* Read-only views of the run-time state, valid until the next API call. */
struct mv_info_var {
	const char *name;
	void *addr;
	unsigned width;           /* bytes */
	int is_signed;
	int is_fnptr;
	int is_tracked;
	int is_bound;
	unsigned n_functions;     /* multiversed functions that read it */
	unsigned n_sites;         /* call sites through it (fn-pointer switches) */
};

struct mv_info_fn {
	const char *name;
	void *generic;
	void *active;             /* the body calls reach now */
	int committed;            /* 1 if bound to a variant */
	unsigned n_variants;      /* distinct variant bodies */
	unsigned n_sites;         /* recorded call sites */
	unsigned n_sites_inlined; /* sites holding an inlined body now */
	unsigned n_sites_skipped; /* sites left alone: unexpected bytes */
};

const struct mv_info_fn *multiverse_info_fn(void *fn);
const struct mv_info_var *multiverse_info_var(void *var);

/* Prints every switch, function, variant with its guards, and site state to
 * out (stderr if NULL). */
void multiverse_dump_info(FILE *out);

/* The message of the last failed call in this thread, or "". */
const char *multiverse_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
