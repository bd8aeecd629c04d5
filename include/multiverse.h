/* SPDX-License-Identifier: MIT */
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
 *
 * One source for every compiler: the plugins predefine __MULTIVERSE__ (1)
 * and __MULTIVERSE_VERSION__ (major * 10000 + minor * 100 + patch).  The
 * macros MULTIVERSE, MULTIVERSE_TRACKED and MULTIVERSE_VALUES(v, ...) give
 * the attribute's forms with the plugin and nothing without it.  Without
 * the plugin the API below is inline functions that do nothing, so such
 * a build needs no runtime library: switches are plain variables read at
 * run time and every function keeps its one body.  They return what is
 * then true: 0 from init, commit and revert calls (nothing changed) and
 * from multiverse_is_committed (the generic runs) and multiverse_bind
 * (unbound: read at run time); NULL from the info calls; "" from
 * multiverse_last_error and multiverse_version (no runtime);
 * multiverse_dump_info prints nothing.  A unit
 * compiled without the plugin that must reach the runtime of a program
 * whose other units have it defines MULTIVERSE_LINK_RUNTIME first.
 *
 * Programs written for the original implementation (luhsra/multiverse)
 * define MULTIVERSE_LUHSRA_API: this header is then
 * <multiverse-luhsra.h>, that implementation's API on this runtime.
 *
 * The Linux kernel has this header as <linux/multiverse.h>
 * (linux/prepare.sh copies it): the same API, exported to GPL modules,
 * the attribute also spelled __multiverse, __multiverse_tracked and
 * __multiverse_values(...), no multiverse_dump_info() (debugfs shows the
 * state), and multiverse_free_init_mem() for kernel_init().  Every call
 * may sleep (docs/kernel.md).
 */
#if defined(MULTIVERSE_LUHSRA_API) && !defined(__KERNEL__)
/* The original implementation's API instead (that header says how). */
#include "multiverse-luhsra.h"
#elif defined(MULTIVERSE_LUHSRA_H)
#error "multiverse.h: this unit already has multiverse-luhsra.h's API; one unit uses one of the two APIs"
#elif !defined(MULTIVERSE_H)
#define MULTIVERSE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <errno.h>
#include <stdio.h>
#endif

#ifdef __MULTIVERSE__
#define MULTIVERSE __attribute__((multiverse))
#define MULTIVERSE_TRACKED __attribute__((multiverse("tracked")))
#define MULTIVERSE_VALUES(...) __attribute__((multiverse("values", __VA_ARGS__)))
#else
#define MULTIVERSE
#define MULTIVERSE_TRACKED
#define MULTIVERSE_VALUES(...)
#endif

#ifdef __KERNEL__
#define __multiverse MULTIVERSE
#define __multiverse_tracked MULTIVERSE_TRACKED
#define __multiverse_values(...) MULTIVERSE_VALUES(__VA_ARGS__)
#endif

#ifdef __cplusplus
extern "C" {
#endif

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
	void *redirect;           /* where multiverse_redirect() sends its
				     calls instead of active, or NULL */
};

/* What a call site holds now (mv_info_site.holds). */
#define MULTIVERSE_SITE_ORIGINAL 0  /* the call the compiler wrote */
#define MULTIVERSE_SITE_CALL     1  /* a direct call (or jump) to the selected body */
#define MULTIVERSE_SITE_INLINED  2  /* that body in the call itself: a NOP, or a constant */
#define MULTIVERSE_SITE_COPIED   3  /* a copy of the selected variant, in its padding */
#define MULTIVERSE_SITE_SKIPPED  4  /* left alone: not the call its descriptor promised */

struct mv_info_site {
	void *addr;               /* the call instruction */
	unsigned pad;             /* bytes of NOPs before it, where copies go */
	int holds;                /* MULTIVERSE_SITE_* */
};

/* The runtime is there: in the kernel with CONFIG_MULTIVERSE, whether or
 * not this unit was compiled with the plugin; in a process, when the
 * unit was, or says so. */
#if defined(__KERNEL__) ? defined(CONFIG_MULTIVERSE) : \
	(defined(__MULTIVERSE__) || defined(MULTIVERSE_LINK_RUNTIME))

/* Builds the run-time tables.  Commit calls it on first use; calling it
 * again is harmless.  Returns 0 or a negative errno value. */
int multiverse_init(void);

/* Bind every multiversed function and function-pointer switch to the
 * current values of the switches. */
int multiverse_commit(void);
/* Restore all patched code to its original bytes. */
int multiverse_revert(void);

/* The same, restricted to the functions that read the switch at var (for
 * a function-pointer switch, its call sites and the functions that
 * compare it with NULL: its probes). */
int multiverse_commit_refs(void *var);
int multiverse_revert_refs(void *var);

/* The same for one function, given its address, or for one
 * function-pointer switch, given the switch's address, with the
 * functions that compare it with NULL. */
int multiverse_commit_fn(void *fn);
int multiverse_revert_fn(void *fn);

/* Spellings from the EuroSys'19 paper. */
#define multiverse_commit_func multiverse_commit_fn
#define multiverse_revert_func multiverse_revert_fn

/* 1 if fn (or the function-pointer switch at fn) is bound to a variant
 * (to a function), 0 if the generic code runs (the indirect calls),
 * negative errno if fn is not multiversed.  After a commit, 0 means no
 * variant matched the switches' values. */
int multiverse_is_committed(void *fn);

/* state 1 binds the switch at var, 0 unbinds it, -1 only queries.
 * Returns the (new) state, or a negative errno value.  Switches declared
 * multiverse("tracked") start unbound, all others bound.  Commit treats an
 * unbound switch as unknown: it selects a variant that reads it at run
 * time, or the generic.  Takes effect at the next commit. */
int multiverse_bind(void *var, int state);

#ifndef __KERNEL__
/* Live update: from its return on, every call of the multiversed
 * function old_fn goes to new_fn, a function of the same type (a new
 * version, say, from a module just loaded with dlopen()): its call sites
 * call new_fn, and its entry jumps there.  new_fn NULL undoes it, to what
 * commit and revert chose meanwhile; they write nothing while it lasts.
 * Returns 0 or a negative errno value, with nothing written: -ENOENT if
 * old_fn is not multiversed (or new_fn's module cannot be kept loaded),
 * -ELOOP if new_fn leads back to it, -EINVAL for an entry that cannot be
 * patched or a new_fn inside the runtime or a variant's body, -EFAULT if
 * new_fn is in no executable segment, -ERANGE if it is out of reach.
 * Multiverse binds calls; it does not migrate data. */
int multiverse_redirect(void *old_fn, void *new_fn);
#endif

const struct mv_info_fn *multiverse_info_fn(void *fn);
const struct mv_info_var *multiverse_info_var(void *var);
/* Call site i (0 to n_sites - 1, as multiverse_info_fn() or
 * multiverse_info_var() count them, in address order) of the
 * multiversed function or the function-pointer switch at fn; NULL past
 * the last, or if fn is neither. */
const struct mv_info_site *multiverse_info_site(void *fn, unsigned i);

/* Prints every switch, function, variant with its guards, and site state to
 * out (standard error, file descriptor 2, if NULL). */
#ifdef __KERNEL__
void multiverse_free_init_mem(void);
#else
void multiverse_dump_info(FILE *out);
#endif

/* The message of the last failed call in this thread, or "". */
const char *multiverse_last_error(void);

/* The version of the runtime the process runs with, such as "0.9.0"; the
 * sources were compiled against __MULTIVERSE_VERSION__. */
const char *multiverse_version(void);

#else   /* no plugin: nothing is multiversed */

static inline int multiverse_init(void) { return 0; }
static inline int multiverse_commit(void) { return 0; }
static inline int multiverse_revert(void) { return 0; }
static inline int multiverse_commit_refs(void *var) { (void)var; return 0; }
static inline int multiverse_revert_refs(void *var) { (void)var; return 0; }
static inline int multiverse_commit_fn(void *fn) { (void)fn; return 0; }
static inline int multiverse_revert_fn(void *fn) { (void)fn; return 0; }
#define multiverse_commit_func multiverse_commit_fn
#define multiverse_revert_func multiverse_revert_fn
static inline int multiverse_is_committed(void *fn) { (void)fn; return 0; }
static inline int multiverse_bind(void *var, int state) { (void)var; (void)state; return 0; }
#ifndef __KERNEL__
/* Without the runtime no call can be redirected: -ENOSYS. */
static inline int multiverse_redirect(void *old_fn, void *new_fn) { (void)old_fn; (void)new_fn; return -ENOSYS; }
#endif
static inline const struct mv_info_fn *multiverse_info_fn(void *fn) { (void)fn; return 0; }
static inline const struct mv_info_var *multiverse_info_var(void *var) { (void)var; return 0; }
static inline const struct mv_info_site *multiverse_info_site(void *fn, unsigned i)
{ (void)fn; (void)i; return 0; }
#ifdef __KERNEL__
static inline void multiverse_free_init_mem(void) { }
#else
static inline void multiverse_dump_info(FILE *out) { (void)out; }
#endif
static inline const char *multiverse_last_error(void) { return ""; }
static inline const char *multiverse_version(void) { return ""; }

#endif

#ifdef __cplusplus
}

/* C++ converts no function pointer to void * implicitly, and a member
 * function's pointer is no address: these overloads take a function, or
 * a non-virtual member function, as it is named:
 *     multiverse_commit_fn(&Widget::cost);
 *     multiverse_is_committed(static_cast<int (*)(int)>(util::over));
 * A virtual member function's pointer names no one function: it gives a
 * NULL address, which the runtime refuses with -EINVAL. */
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace multiverse_detail {
template <typename R, typename... A> inline void *address(R (*fn)(A...))
{
	return reinterpret_cast<void *>(fn);
}
template <typename R, typename... A> inline void *address(R (*fn)(A..., ...))
{
	return reinterpret_cast<void *>(fn);
}
/* The Itanium C++ ABI's member-function pointer: {ptr, adj}.  A virtual
 * one has ptr's low bit set, or on ARM and AArch64 adj's; otherwise ptr
 * is the function's address. */
template <typename C, typename M> inline void *address(M C::*pm)
{
	static_assert(std::is_function<M>::value, "a member function, not a data member");
	struct { unsigned long ptr; long adj; } r;
	static_assert(sizeof pm == sizeof r, "an Itanium C++ ABI member-function pointer");
	std::memcpy(&r, &pm, sizeof r);
#if defined(__aarch64__) || defined(__arm__)
	bool is_virtual = r.adj & 1;
#else
	bool is_virtual = r.ptr & 1;
#endif
	return is_virtual ? nullptr : reinterpret_cast<void *>(r.ptr);
}
} // namespace multiverse_detail

#define MULTIVERSE_FN_OVERLOADS_(R, api) \
	template <typename T, typename... A> inline R api(T (*fn)(A...)) \
	{ return api(multiverse_detail::address(fn)); } \
	template <typename T, typename... A> inline R api(T (*fn)(A..., ...)) \
	{ return api(multiverse_detail::address(fn)); } \
	template <typename C, typename M> inline R api(M C::*fn) \
	{ return api(multiverse_detail::address(fn)); }
MULTIVERSE_FN_OVERLOADS_(int, multiverse_commit_fn)
MULTIVERSE_FN_OVERLOADS_(int, multiverse_revert_fn)
MULTIVERSE_FN_OVERLOADS_(int, multiverse_is_committed)
MULTIVERSE_FN_OVERLOADS_(const struct mv_info_fn *, multiverse_info_fn)
#undef MULTIVERSE_FN_OVERLOADS_
#ifndef __KERNEL__
/* old and new of one type; new may also be what dlsym() returns, or
 * nullptr, which undoes the redirect.  A virtual member function names
 * no one function: refused as a NULL old is. */
template <typename T, typename... A>
inline int multiverse_redirect(T (*old_fn)(A...), T (*new_fn)(A...))
{ return multiverse_redirect(multiverse_detail::address(old_fn), multiverse_detail::address(new_fn)); }
template <typename T, typename... A>
inline int multiverse_redirect(T (*old_fn)(A..., ...), T (*new_fn)(A..., ...))
{ return multiverse_redirect(multiverse_detail::address(old_fn), multiverse_detail::address(new_fn)); }
template <typename C, typename M>
inline int multiverse_redirect(M C::*old_fn, M C::*new_fn)
{
	void *to = multiverse_detail::address(new_fn);
	return multiverse_redirect(to ? multiverse_detail::address(old_fn) : nullptr, to);
}
template <typename T, typename... A>
inline int multiverse_redirect(T (*old_fn)(A...), void *new_fn)
{ return multiverse_redirect(multiverse_detail::address(old_fn), new_fn); }
template <typename T, typename... A>
inline int multiverse_redirect(T (*old_fn)(A..., ...), void *new_fn)
{ return multiverse_redirect(multiverse_detail::address(old_fn), new_fn); }
template <typename C, typename M>
inline int multiverse_redirect(M C::*old_fn, void *new_fn)
{ return multiverse_redirect(multiverse_detail::address(old_fn), new_fn); }
#endif
template <typename T, typename... A>
inline const struct mv_info_site *multiverse_info_site(T (*fn)(A...), unsigned i)
{ return multiverse_info_site(multiverse_detail::address(fn), i); }
template <typename T, typename... A>
inline const struct mv_info_site *multiverse_info_site(T (*fn)(A..., ...), unsigned i)
{ return multiverse_info_site(multiverse_detail::address(fn), i); }
template <typename C, typename M>
inline const struct mv_info_site *multiverse_info_site(M C::*fn, unsigned i)
{ return multiverse_info_site(multiverse_detail::address(fn), i); }
#endif

#endif
