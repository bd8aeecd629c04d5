/* SPDX-License-Identifier: MIT */
/*
 * The API of the original Multiverse implementation
 * (github.com/luhsra/multiverse), on this runtime: programs written for
 * it build unchanged when compiled with -DMULTIVERSE_LUHSRA_API, which
 * makes <multiverse.h> this header (or include this one instead).
 *
 * What it adds to <multiverse.h>'s API:
 *   - multiverse_info_fn() and multiverse_info_var() return that
 *     implementation's records: a function's variant records
 *     (n_mv_functions, mv_functions[i].function_body and guards, its
 *     active_mvfn), a switch's flags and the functions that read it;
 *   - multiverse_commit_info_fn(), multiverse_revert_info_fn(),
 *     multiverse_commit_info_refs() and multiverse_revert_info_refs(),
 *     which take those records;
 *   - multiverse_dump_info() with no argument (stderr) or a stream.
 * Every call that returns an int returns -1 on error, as there, instead
 * of a negative errno value; multiverse_last_error() says why.
 *
 * The differences that stay, and why, are in the README ("Programs
 * written for luhsra/multiverse").  Among them: a record's guard bounds
 * are 32-bit there, so a bound beyond that range is saturated here; the
 * records stay valid until the module (executable or shared object) that
 * defines the function or switch is unloaded, and each call refreshes
 * them, and so does every commit, revert and bind; there are no patch
 * points to walk (patchpoints_head is NULL).
 *
 * Without the plugin (and without MULTIVERSE_LINK_RUNTIME), as with
 * <multiverse.h>, the calls do nothing and need no runtime: the info
 * calls return NULL, the others 0.
 */
#ifndef MULTIVERSE_LUHSRA_H
#define MULTIVERSE_LUHSRA_H

#if defined(MULTIVERSE_H) && !defined(MULTIVERSE_LUHSRA_NO_NAMES)
#error "multiverse-luhsra.h: this unit already has <multiverse.h>'s API; one unit uses one of the two APIs (define MULTIVERSE_LUHSRA_API for the original's)"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t mv_value_t;

/* What a variant's body is, where the runtime can tell without reading
 * code: MVFN_TYPE_NOP for an empty body, otherwise MVFN_TYPE_NONE. */
typedef enum {
	MVFN_TYPE_NONE,
	MVFN_TYPE_NOP,
	MVFN_TYPE_CONSTANT,
	MVFN_TYPE_CLI,
	MVFN_TYPE_STI,
} mvfn_type_t;

struct mv_luhsra_var;
struct mv_luhsra_fn;

/* One conjunct of a variant's guard: lower_bound <= switch <= upper_bound.
 * variable.info is the switch's record (as after that implementation's
 * initialization, which turned the location into it). */
struct mv_luhsra_assignment {
	union {
		void *location;
		struct mv_luhsra_var *info;
	} variable;
	mv_value_t lower_bound;
	mv_value_t upper_bound;
};

/* A variant record; merged variants are several records with one body. */
struct mv_luhsra_mvfn {
	void *function_body;
	unsigned int n_assignments;
	struct mv_luhsra_assignment *assignments;
	int type;                 /* mvfn_type_t */
	mv_value_t constant;
};

struct mv_luhsra_patchpoint;

/* A multiversed function, or a function-pointer switch: then
 * n_mv_functions is -1, function_body is the switch's address and
 * mv_functions is one record whose body is the function its call sites
 * are bound to (NULL while they are not). */
struct mv_luhsra_fn {
	char *const name;
	void *function_body;
	int n_mv_functions;
	struct mv_luhsra_mvfn *mv_functions;
	struct mv_luhsra_patchpoint *patchpoints_head;   /* always NULL */
	struct mv_luhsra_mvfn *active_mvfn;             /* NULL: the generic runs */
};

struct mv_luhsra_fn_ref {
	struct mv_luhsra_fn_ref *next;
	struct mv_luhsra_fn *fn;
};

struct mv_luhsra_var {
	char *const name;
	void *variable_location;
	union {
		unsigned int info;
		struct {
			unsigned int variable_width : 4,   /* bytes */
				reserved : 25,
				flag_tracked : 1,
				flag_signed : 1,
				flag_bound : 1;
		};
	};
	struct mv_luhsra_fn_ref *functions_head;   /* the functions that read it */
};

#if defined(__MULTIVERSE__) || defined(MULTIVERSE_LINK_RUNTIME)

/* The runtime's side (runtime/luhsra.c): NULL if fn (var) is not a
 * multiversed function or function-pointer switch (not a switch). */
struct mv_luhsra_fn *multiverse_luhsra_info_fn(void *fn);
struct mv_luhsra_var *multiverse_luhsra_info_var(void *var);
/* refreshes the records handed out, after a commit, revert or bind */
void multiverse_luhsra_update(void);

/* <multiverse.h>'s calls, which return negative errno values. */
int multiverse_init(void);
int multiverse_commit(void);
int multiverse_revert(void);
int multiverse_commit_refs(void *var);
int multiverse_revert_refs(void *var);
int multiverse_commit_fn(void *fn);
int multiverse_revert_fn(void *fn);
int multiverse_is_committed(void *fn);
int multiverse_bind(void *var, int state);
void multiverse_dump_info(FILE *out);
const char *multiverse_last_error(void);
const char *multiverse_version(void);

static inline int mv_luhsra_status_(int r)
{
	return r < 0 ? -1 : r;
}

/* A call that may change what the records say. */
static inline int mv_luhsra_changed_(int r)
{
	multiverse_luhsra_update();
	return mv_luhsra_status_(r);
}

static inline int mv_luhsra_init(void) { return mv_luhsra_status_(multiverse_init()); }
static inline int mv_luhsra_commit(void) { return mv_luhsra_changed_(multiverse_commit()); }
static inline int mv_luhsra_revert(void) { return mv_luhsra_changed_(multiverse_revert()); }
static inline int mv_luhsra_commit_refs(void *var)
{ return mv_luhsra_changed_(multiverse_commit_refs(var)); }
static inline int mv_luhsra_revert_refs(void *var)
{ return mv_luhsra_changed_(multiverse_revert_refs(var)); }
static inline int mv_luhsra_commit_fn(void *fn)
{ return mv_luhsra_changed_(multiverse_commit_fn(fn)); }
static inline int mv_luhsra_revert_fn(void *fn)
{ return mv_luhsra_changed_(multiverse_revert_fn(fn)); }
static inline int mv_luhsra_is_committed(void *fn)
{ return mv_luhsra_status_(multiverse_is_committed(fn)); }
/* There, any state above 0 binds. */
static inline int mv_luhsra_bind(void *var, int state)
{ return mv_luhsra_changed_(multiverse_bind(var, state > 0 ? 1 : state)); }

#else   /* no plugin: nothing is multiversed */

static inline struct mv_luhsra_fn *multiverse_luhsra_info_fn(void *fn) { (void)fn; return 0; }
static inline struct mv_luhsra_var *multiverse_luhsra_info_var(void *var) { (void)var; return 0; }
static inline int mv_luhsra_init(void) { return 0; }
static inline int mv_luhsra_commit(void) { return 0; }
static inline int mv_luhsra_revert(void) { return 0; }
static inline int mv_luhsra_commit_refs(void *var) { (void)var; return 0; }
static inline int mv_luhsra_revert_refs(void *var) { (void)var; return 0; }
static inline int mv_luhsra_commit_fn(void *fn) { (void)fn; return 0; }
static inline int mv_luhsra_revert_fn(void *fn) { (void)fn; return 0; }
static inline int mv_luhsra_is_committed(void *fn) { (void)fn; return 0; }
static inline int mv_luhsra_bind(void *var, int state) { (void)var; (void)state; return 0; }
static inline void multiverse_dump_info(FILE *out) { (void)out; }
static inline const char *multiverse_last_error(void) { return ""; }
static inline const char *multiverse_version(void) { return ""; }

#endif

static inline int multiverse_commit_info_fn(struct mv_luhsra_fn *fn)
{ return fn ? mv_luhsra_commit_fn(fn->function_body) : -1; }
static inline int multiverse_revert_info_fn(struct mv_luhsra_fn *fn)
{ return fn ? mv_luhsra_revert_fn(fn->function_body) : -1; }
static inline int multiverse_commit_info_refs(struct mv_luhsra_var *var)
{ return var ? mv_luhsra_commit_refs(var->variable_location) : -1; }
static inline int multiverse_revert_info_refs(struct mv_luhsra_var *var)
{ return var ? mv_luhsra_revert_refs(var->variable_location) : -1; }

#ifdef __cplusplus
}
#endif

/* That implementation's names.  The runtime, which has its own
 * struct mv_info_fn, defines MULTIVERSE_LUHSRA_NO_NAMES. */
#ifndef MULTIVERSE_LUHSRA_NO_NAMES
#define mv_info_var mv_luhsra_var
#define mv_info_fn mv_luhsra_fn
#define mv_info_mvfn mv_luhsra_mvfn
#define mv_info_fn_ref mv_luhsra_fn_ref
#define mv_info_assignment mv_luhsra_assignment
#define mv_patchpoint mv_luhsra_patchpoint
#define multiverse_info_fn multiverse_luhsra_info_fn
#define multiverse_info_var multiverse_luhsra_info_var
#define multiverse_init mv_luhsra_init
#define multiverse_commit mv_luhsra_commit
#define multiverse_revert mv_luhsra_revert
#define multiverse_commit_refs mv_luhsra_commit_refs
#define multiverse_revert_refs mv_luhsra_revert_refs
#define multiverse_commit_fn mv_luhsra_commit_fn
#define multiverse_revert_fn mv_luhsra_revert_fn
#define multiverse_is_committed mv_luhsra_is_committed
#define multiverse_bind mv_luhsra_bind
/* With no argument (stderr), as there, or with a stream, as in
 * <multiverse.h>: in C a macro that takes either, in C++ an overload. */
#ifdef __cplusplus
inline void multiverse_dump_info() { multiverse_dump_info(0); }
#else
static inline FILE *mv_luhsra_stream_(FILE *const *arg, size_t size)
{
	return size > sizeof *arg ? arg[1] : 0;
}
#define multiverse_dump_info(...) (multiverse_dump_info)(mv_luhsra_stream_( \
	(FILE *[]){ 0, __VA_ARGS__ }, sizeof (FILE *[]){ 0, __VA_ARGS__ }))
#endif
#endif

#endif
