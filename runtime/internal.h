/* SPDX-License-Identifier: MIT */
/*
 * Run-time tables and the interfaces between the runtime's files.
 *
 * The tables merge the descriptors of every registered module.  Each is an
 * array sorted by address (sites by callee, then address, so that the sites
 * of one function or function-pointer switch form a run); entries move when
 * a module is merged, so only indices outlive an API call.  All of it is
 * guarded by mv_lock().
 */
#ifndef MV_INTERNAL_H
#define MV_INTERNAL_H

#include "platform.h"
#include "arch.h"
#include "descriptor.h"
#include "fault.h"

enum mv_area_state {
	MV_AREA_UNRESOLVED,   /* a site whose callee is not registered (yet) */
	MV_AREA_INVALID,      /* not what its descriptor says: never written */
	MV_AREA_SKIPPED,      /* changed behind our back: never written again */
	MV_AREA_ORIG,         /* the compiler's bytes */
	MV_AREA_BRANCH,       /* a direct branch to the active body */
	MV_AREA_INLINED,      /* the active body itself */
	MV_AREA_COPIED,       /* a region: a copy of the active body (region.c) */
};

#define MV_AREA_MAX 8   /* an area that is one instruction */
/* a region: the padding and the call, a tail call's one return more */
#define MV_REGION_MAX (MV_INLINE_MAX + MV_ARCH_SITE_MAX + 4)

/*
 * A stretch of text we patch: a call site or an entry patch area, one
 * instruction each; or the region of a padded call site (its NOPs and its
 * call), which may receive a copy of a variant's body (region.c).  A
 * region's bytes live out of line, in wide: orig, cur, alt, then the
 * poke queue's buffer (poke.c), each len bytes, then its
 * equivalents (what a trap at its first byte emulates, MV_AREA_MAX bytes
 * each): of cur, then of what the queue wants; then where its call is,
 * from addr, and that call's length.  Use the accessors.
 */
struct mv_area {
	uint8_t *addr;
	uint8_t len;
	uint8_t state;            /* enum mv_area_state */
	uint8_t stuck;            /* a failed batch left it mid-protocol (poke.c) */
	uint8_t queued;           /* in the batch being built */
	uint32_t order;           /* its place among all areas by address, as
				     the platform last counted (linux-user
				     poke.c), or MV_AREA_NO_ORDER */
	uint8_t b_orig[MV_AREA_MAX];
	uint8_t b_cur[MV_AREA_MAX];  /* what we last wrote, or orig: what runs */
	uint8_t b_alt[MV_AREA_MAX];  /* stuck: what the failed batch left in the text */
	uint8_t *wide;            /* a region's bytes, or NULL */
};

static inline uint8_t *mv_orig(struct mv_area *a)
{
	return a->wide ? a->wide : a->b_orig;
}

static inline uint8_t *mv_cur(struct mv_area *a)
{
	return a->wide ? a->wide + a->len : a->b_cur;
}

static inline uint8_t *mv_alt(struct mv_area *a)
{
	return a->wide ? a->wide + 2 * a->len : a->b_alt;
}

/* A region's queue buffer (poke.c) and equivalents. */
static inline uint8_t *mv_wide_want(struct mv_area *a)
{
	return a->wide + 3 * a->len;
}

static inline uint8_t *mv_wide_eq(struct mv_area *a, int want)
{
	return a->wide + 4 * a->len + want * MV_AREA_MAX;
}

/* Where a region's call is, from its start, and that call's length. */
static inline uint8_t *mv_wide_call(const struct mv_area *a)
{
	return a->wide + 4 * a->len + 2 * MV_AREA_MAX;
}

#define MV_WIDE_BYTES(len) (4 * (len) + 2 * MV_AREA_MAX + 2)
#define MV_AREA_NO_ORDER UINT32_MAX

/*
 * Comparing and copying areas' bytes.  Areas are a few bytes long, for
 * which a call of memcmp() or memcpy() costs more than the work: most
 * are 4 to 8 bytes (any AArch64 instruction; an x86-64 call, jump or
 * entry), which two 4-byte moves cover, overlapping in the middle.
 * Neither reads or writes a byte outside the n given.
 */
static inline uint32_t mv_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

static inline void mv_put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);
}

static inline int mv_same_bytes(const uint8_t *x, const uint8_t *y, size_t n)
{
	if (n >= 4 && n <= 8)
		return mv_get32(x) == mv_get32(y) && mv_get32(x + n - 4) == mv_get32(y + n - 4);
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return 0;
	return 1;
}

static inline void mv_copy_bytes(uint8_t *dst, const uint8_t *src, size_t n)
{
	if (n >= 4 && n <= 8) {
		uint32_t head = mv_get32(src), tail = mv_get32(src + n - 4);

		mv_put32(dst, head);
		mv_put32(dst + n - 4, tail);
		return;
	}
	memcpy(dst, src, n);
}

/* Whether the text of a holds what the runtime left there: what it last
 * wrote, or for a stuck area what the failed batch left, read back
 * (linux-user poke.c; the kernel's areas are never stuck).  The text is
 * read directly: every area was readable when captured, and its module
 * is still loaded. */
static inline int mv_area_matches(struct mv_area *a)
{
	return mv_same_bytes(a->addr, a->stuck ? mv_alt(a) : mv_cur(a), a->len);
}

struct mv_var {
	void *addr;
	const char *name;
	unsigned width;
	unsigned flags;           /* MV_VAR_* */
	int bound;
	int owned_name;           /* name is our copy, freed with the record */
	void *active;             /* fn-pointer switch: what it is committed to */
	void *reached;            /* ... what its sites call: active, or where
				     it is committed NULL, the last function
				     its sites in "not NULL" variants stay
				     bound to (commit.c) */
	int committed;            /* fn-pointer switch: bound to active (NULL
				     too) with every site reaching it, which
				     its guards are evaluated against */
	size_t site0, n_sites;    /* fn-pointer switch: its run in mv.sites */
	unsigned long checked;    /* ... all built and resolved at this
				     mv.generation (mv_check_sites) */
	unsigned unbound;         /* sites left indirect, as last reported */
	void *unbound_target;     /* ... for this target */
};

struct mv_fn {
	void *generic;
	const struct mv_desc_fn *desc;
	const char *name;                         /* desc's */
	const struct mv_desc_variant *variants;   /* desc's */
	uintptr_t code;           /* where its code starts: its entry NOP, or
				     the landing pad or debugger's NOP before
				     it (MV_FN_ENTRY_AFTER_PAD) */
	void *active;             /* the body commit and revert chose: what
				     calls reach unless redirected */
	void *redirect;           /* multiverse_redirect(): the function its
				     entry and sites send calls to instead,
				     or NULL (redirect.c) */
	struct mv_area entry;
	size_t site0, n_sites;
	unsigned long checked;    /* its sites all built and resolved at this
				     mv.generation (mv_check_sites) */
	uint8_t *pristine;        /* its inlinable variants' code as first read
				     (region.c), one after the other, or NULL */
	uint8_t stale;            /* precommitted, but its entry or a site held
				     other bytes when last read (a debugger's
				     breakpoint, say): read again, and until
				     then neither committed nor reverted */
};

struct mv_site {
	void *callee;             /* generic or fn-pointer switch */
	struct mv_area area;
	struct mv_insn insn;      /* valid unless UNRESOLVED or INVALID */
	uintptr_t plt_slot;       /* a call through a PLT entry: its GOT slot */
	uintptr_t callee_code;    /* where the callee's code starts, if a function */
	uint8_t pad;              /* bytes of NOPs before the call (checked) */
	uint8_t via_region;       /* region was written last: its cur says what runs */
	uint8_t via_switch;       /* a call through a function-pointer switch */
	uint8_t aim;              /* the state the last mv_site_point() asked for */
	uint8_t in_probe_variant; /* MV_SITE_IN_PROBE_VARIANT */
	uint8_t to_function;      /* pointed at a function's own address (a
				     redirect), which has its landing pad:
				     a far-call gate may jump there */
	uint8_t precommitted;     /* MV_SITE_PRECOMMITTED; 2 with _JMP */
	uint8_t stale;            /* precommitted, but found holding other
				     bytes: left unresolved, read again at the
				     next call that needs it */
	struct mv_area *region;   /* a padded site's region (region.c), or NULL */
};

/*
 * A site's record is built the first time its run is checked
 * (mv_check_sites) or may get a region (mv_check_region_sites): start-up
 * only places each site's descriptor in mv.index, sorted as the records
 * are, and a function never committed costs its sites 8 bytes each.
 * mv.sites[i] holds a record only once mv.index[i] has MV_SITE_BUILT;
 * the array has room for every site, so a record built during a batch
 * never moves the others.
 */
struct mv_tables {
	struct mv_var *vars;
	struct mv_fn *fns;
	struct mv_site *sites;
	uintptr_t *index;         /* each site's descriptor | MV_SITE_BUILT,
				     sorted by (callee, site) */
	size_t n_vars, n_fns, n_sites;
	size_t n_regions;         /* sites with a region */
	unsigned long generation; /* changes whenever records join or leave */
};

extern struct mv_tables mv;

#define MV_SITE_BUILT ((uintptr_t)1)  /* descriptors are word-aligned */

static inline const struct mv_desc_site *mv_entry_desc(uintptr_t entry)
{
	return (const struct mv_desc_site *)(entry & ~MV_SITE_BUILT);
}

static inline const struct mv_desc_site *mv_site_desc(size_t i)
{
	return mv_entry_desc(mv.index[i]);
}

/* Site i's record, or NULL if it was never built: never read, never
 * written, so its call is the compiler's. */
static inline struct mv_site *mv_site_if_built(size_t i)
{
	return mv.index[i] & MV_SITE_BUILT ? &mv.sites[i] : 0;
}

/* Site i's record, built the first time it is needed (tables.c). */
struct mv_site *mv_site_make(size_t i);
static inline struct mv_site *mv_site_build(size_t i)
{
	return mv.index[i] & MV_SITE_BUILT ? &mv.sites[i] : mv_site_make(i);
}

/* The descriptor arrays of one module. */
struct mv_module {
	const struct mv_desc_var *var, *var_end;
	const struct mv_desc_fn *fn, *fn_end;
	const struct mv_desc_site *site, *site_end;
};

/* registry.c */
int mv_register_locked(const struct mv_module *d);
int mv_sync(void);            /* merge modules registered since last time */
void mv_mem_fresh(void);      /* mv_mem_refresh(), once per API call */
int mv_registered_in(const struct mv_span *spans, size_t n);

/* tables.c */
void mv_capture_entry(struct mv_fn *f);
int mv_reserve(const struct mv_module *m); /* before merging m */
int mv_merge(const struct mv_module *m);
void mv_link(void);           /* attach sites to their callees */
void mv_check_region_sites(void);
void mv_check_all_sites(void);
void mv_forget(const struct mv_module *m, const struct mv_span *spans, size_t n);
int mv_in_spans(const struct mv_span *spans, size_t n, const void *p);
struct mv_var *mv_find_var(const void *addr);
struct mv_fn *mv_find_fn(const void *generic);
struct mv_fn *mv_find_fn_named(const void *p);

/* select.c */
typedef const struct mv_var *mv_var_lookup(const void *addr);
int64_t mv_switch_read(const void *addr, unsigned width, int is_signed);
int mv_guard_holds(const struct mv_desc_guard *g, const struct mv_var *var);
const struct mv_desc_variant *mv_select(const struct mv_desc_variant *v,
					unsigned n, mv_var_lookup *find);
int mv_reads(const struct mv_desc_fn *fn, const void *var);

/* patch.c */
char *mv_hex(char *buf, const uint8_t *p, size_t n);
int mv_area_capture(struct mv_area *a, void *addr, size_t len);
void mv_area_skip(struct mv_area *a, const char *what, const char *name);

/*
 * The checks before any write, the same for call sites and entries:
 *  1. An area that is UNRESOLVED, INVALID or SKIPPED is never written.
 *  2. Wanting the bytes the area already holds writes nothing, unless a
 *     failed batch left the area stuck with a breakpoint (poke.c).
 *  3. Otherwise the text must still hold exactly what we last wrote there
 *     (at first, the original bytes), or for a stuck area what the failed
 *     batch may have left (mv_area_matches).  If anything else changed
 *     it, the area becomes SKIPPED: reported now, never written again.
 *  4. The new bytes are queued; the API call writes its whole queue with
 *     the protocol of poke.c, and cur and state follow only once that
 *     succeeded.  Each area is queued at most once per API call.
 * Inline: it runs for every area of every batch, and its common path
 * costs less than a call.
 */
static inline int mv_area_set(struct mv_area *a, const uint8_t *bytes, int state,
			      const char *what, const char *name)
{
	if (a->state < MV_AREA_ORIG)
		return 0;
	if (!a->stuck && mv_same_bytes(mv_cur(a), bytes, a->len)) {
		a->state = state;
		return 0;
	}
	if (!mv_area_matches(a)) {
		mv_area_skip(a, what, name);
		return 0;
	}
	return mv_poke_queue(a, bytes, state);
}

/* commit.c */
int mv_apply_fn(struct mv_fn *f, void *body);
void *mv_chosen(const struct mv_fn *f);  /* active, or NULL for the generic */
int mv_redirect_set(struct mv_fn *f, void *new);
int mv_apply_fnptr(struct mv_var *v, void *target, void *keep);
void *mv_selected(const struct mv_fn *f);
int mv_batch(int (*op)(void *ctx), void *ctx);
int mv_batch_reserve(size_t n_fns, size_t n_vars);
extern int mv_committed_all;
int mv_committed_any(void);

/* module.c: modules loaded after a commit, and modules unloaded */
int mv_module_loaded(const struct mv_module *m);
int mv_module_unloading(const struct mv_module *m);
int mv_spans_unloading(const struct mv_module *m, const struct mv_span *spans, size_t n);

/* site.c */
void mv_site_resolve(struct mv_site *s, struct mv_fn *f, const char *name);
int mv_precommitted_form(const uint8_t *bytes, uintptr_t at, int is_jmp, uintptr_t callee,
			 const void *body, uint8_t *orig, struct mv_insn *insn);
int mv_check_sites(size_t site0, size_t n, struct mv_fn *f, const char *name,
		   unsigned long *checked);
int mv_site_point(struct mv_site *s, const void *body, const struct mv_body *inl,
		  const struct mv_desc_variant *v, const uint8_t *pristine,
		  const char *name);
int mv_sites_point(size_t site0, size_t n, int all, int to_function, const void *body,
		   const struct mv_body *inl, const struct mv_desc_variant *v,
		   const uint8_t *pristine, const char *name);
/* buf: MV_AREA_MAX bytes, whatever the site's length (site.c). */
int mv_site_bytes(struct mv_site *s, const void *body, const struct mv_body *inl,
		  uint8_t *buf);
int mv_site_plt_ok(const struct mv_site *s);

/* region.c: padded call sites, and copying variants into them */
static inline int mv_site_state(const struct mv_site *s)
{
	if (s->stale)
		return MV_AREA_SKIPPED;     /* as the API tells it (site.c) */
	return s->via_region ? s->region->state : s->area.state;
}
/* Site i's state; a site never built is as one never resolved. */
static inline int mv_site_state_at(size_t i)
{
	const struct mv_site *s = mv_site_if_built(i);
	return s ? mv_site_state(s) : MV_AREA_UNRESOLVED;
}
int mv_region_may_fit_call(const struct mv_fn *f);
void mv_region_setup(struct mv_site *s, const struct mv_fn *f, const char *name);
void mv_region_free(struct mv_site *s);
void mv_region_capture(struct mv_fn *f);
const uint8_t *mv_region_pristine(struct mv_fn *f, const struct mv_desc_variant *v);
int mv_region_point(struct mv_site *s, const void *body, const struct mv_body *inl,
		    const struct mv_desc_variant *v, const uint8_t *pristine,
		    const char *name);
void mv_region_sweep(struct mv_site *s);

/* info.c */
struct mv_printer {
	void (*print)(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	void *ctx;
};
void mv_dump(const struct mv_printer *out);

/* error.c */
void mv_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int mv_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mv_report_hold(void);      /* messages wait, other threads stopped */
void mv_report_release(void);   /* prints them */

#endif
