/* SPDX-License-Identifier: MIT */
/*
 * The records of the original implementation's API
 * (include/multiverse-luhsra.h): struct mv_info_fn with its variant
 * records, struct mv_info_var with the functions that read it.
 *
 * Programs written for it keep the pointers these calls return and read
 * them later, so nothing they point to ever moves or is freed: a record
 * is made per function and per switch the first time anything is asked,
 * and kept; an array that must grow is replaced and the old one left.
 * The records point into each other (guards to switches, switches to the
 * functions that read them), so they are built together, again only when
 * modules joined or left the tables since (mv.generation).  What a commit
 * or a bind changes (active_mvfn, flag_bound) is refreshed by every info
 * call and, through the header's wrappers, after every commit, revert and
 * bind, as the original's own records were.  Each field is stored once
 * with its new value, never cleared first, for threads reading them.
 * A record of a module that was unloaded is no longer refreshed, nor
 * handed out.
 *
 * User space only: the kernel has no use for it.
 */
#include "internal.h"
#define MULTIVERSE_LUHSRA_NO_NAMES
#include "multiverse-luhsra.h"

struct fn_rec {
	struct mv_luhsra_fn pub;
	struct mv_luhsra_mvfn *mvfns;
	struct mv_luhsra_assignment *guards;
	size_t cap_mvfns, cap_guards;
};

struct var_rec {
	struct mv_luhsra_var pub;
	struct mv_luhsra_fn_ref *refs;
	size_t cap_refs, n_readers;
	const struct mv_fn *last;   /* the reader counted last */
};

/* Records by address (a function's generic, a switch's address),
 * sorted, each one allocated once. */
struct rec_index {
	void **key_rec;           /* pairs: key, record */
	size_t n, cap;
};

static struct rec_index fn_index, var_index;
static unsigned long built_generation;
static int built, handed_out;

/* The slot of key in x: where it is, or where it would go. */
static size_t index_slot(const struct rec_index *x, const void *key)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)x->key_rec[2 * mid] < (uintptr_t)key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void *index_find(const struct rec_index *x, const void *key)
{
	size_t i = index_slot(x, key);

	return i < x->n && x->key_rec[2 * i] == key ? x->key_rec[2 * i + 1] : 0;
}

/* key's record, made (zeroed) if it has none yet; NULL if out of memory */
static void *index_get(struct rec_index *x, const void *key, size_t size)
{
	size_t i = index_slot(x, key);
	void *rec;

	if (i < x->n && x->key_rec[2 * i] == key)
		return x->key_rec[2 * i + 1];
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 64;
		void **p = realloc(x->key_rec, 2 * cap * sizeof *p);

		if (!p)
			return 0;
		x->key_rec = p;
		x->cap = cap;
	}
	if (!(rec = calloc(1, size)))
		return 0;
	memmove(&x->key_rec[2 * i + 2], &x->key_rec[2 * i], 2 * (x->n - i) * sizeof(void *));
	x->key_rec[2 * i] = (void *)key;
	x->key_rec[2 * i + 1] = rec;
	x->n++;
	return rec;
}

/* *arr holds *cap elements of size bytes: at least want, after this.  A
 * new array replaces it, with its elements; the old one is left where it
 * is, since a program may hold pointers into it. */
static int grow(void *arr, size_t *cap, size_t want, size_t size)
{
	void *p;

	if (want <= *cap)
		return 0;
	if (!(p = calloc(want, size)))
		return -ENOMEM;
	if (*cap)
		memcpy(p, *(void **)arr, *cap * size);
	*(void **)arr = p;
	*cap = want;
	return 0;
}

/* Its fields are const, as there; the record is ours to fill. */
static void set_name(char *const *field, const char *name)
{
	memcpy((void *)field, &name, sizeof name);
}

/* A bound of the switch's type as the 32 bits there: saturated where
 * the value does not fit. */
static mv_value_t bound32(int64_t v, int is_signed)
{
	if (is_signed)
		return (mv_value_t)(int32_t)(v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v);
	return (uint64_t)v > UINT32_MAX ? UINT32_MAX : (mv_value_t)v;
}

static int build_var(const struct mv_var *v)
{
	struct var_rec *r = index_get(&var_index, v->addr, sizeof *r);
	struct mv_luhsra_var bits;

	if (!r)
		return -ENOMEM;
	bits.info = 0;
	bits.variable_width = v->width;
	bits.flag_tracked = !!(v->flags & MV_VAR_TRACKED);
	bits.flag_signed = !!(v->flags & MV_VAR_SIGNED);
	bits.flag_bound = !!v->bound;
	set_name(&r->pub.name, v->name);
	r->pub.variable_location = v->addr;
	r->pub.info = bits.info;
	r->n_readers = 0;
	r->last = 0;
	return 0;
}

static int build_fn(const struct mv_fn *f)
{
	const struct mv_desc_fn *d = f->desc;
	struct fn_rec *r = index_get(&fn_index, f->generic, sizeof *r);
	size_t n_guards = 0, k = 0;

	if (!r)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->n_variants; i++)
		n_guards += f->variants[i].n_guards;
	if (grow(&r->mvfns, &r->cap_mvfns, d->n_variants, sizeof *r->mvfns) < 0 ||
	    grow(&r->guards, &r->cap_guards, n_guards, sizeof *r->guards) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->n_variants; i++) {
		const struct mv_desc_variant *x = &f->variants[i];
		struct mv_luhsra_mvfn *m = &r->mvfns[i];

		m->function_body = mv_desc_variant_body(x);
		m->n_assignments = x->n_guards;
		m->assignments = &r->guards[k];
		m->type = x->inlining == MV_INLINE_OK && !x->copy_len ? MVFN_TYPE_NOP : MVFN_TYPE_NONE;
		m->constant = 0;
		for (uint32_t j = 0; j < x->n_guards; j++, k++) {
			const struct mv_desc_guard *g = &mv_desc_variant_guards(x)[j];
			void *var = mv_desc_guard_var(x, g);
			const struct mv_var *v = mv_find_var(var);
			struct var_rec *vr = v ? index_find(&var_index, v->addr) : 0;

			if (vr)
				r->guards[k].variable.info = &vr->pub;
			else
				r->guards[k].variable.location = var;
			r->guards[k].lower_bound = bound32(g->low, v && v->flags & MV_VAR_SIGNED);
			r->guards[k].upper_bound = bound32(g->high, v && v->flags & MV_VAR_SIGNED);
			if (vr && vr->last != f) {
				vr->last = f;
				vr->n_readers++;
			}
		}
	}
	set_name(&r->pub.name, f->name);
	r->pub.function_body = f->generic;
	r->pub.mv_functions = r->mvfns;
	r->pub.n_mv_functions = d->n_variants;
	return 0;
}

/* A function-pointer switch as that implementation lists it: a function
 * record with n_mv_functions = -1 and one record of what it is bound to. */
static int build_fnptr(const struct mv_var *v)
{
	struct fn_rec *r = index_get(&fn_index, v->addr, sizeof *r);

	if (!r || grow(&r->mvfns, &r->cap_mvfns, 1, sizeof *r->mvfns) < 0)
		return -ENOMEM;
	set_name(&r->pub.name, v->name);
	r->pub.function_body = v->addr;
	r->pub.mv_functions = r->mvfns;
	r->pub.n_mv_functions = -1;
	return 0;
}

/* Each switch's list of the functions that read it (build_fn counted
 * them): room first, then the nodes, then the head. */
static int link_readers(void)
{
	for (size_t i = 0; i < mv.n_vars; i++) {
		struct var_rec *vr = index_find(&var_index, mv.vars[i].addr);

		if (grow(&vr->refs, &vr->cap_refs, vr->n_readers, sizeof *vr->refs) < 0)
			return -ENOMEM;
		vr->last = 0;
		vr->n_readers = 0;
	}
	for (size_t j = 0; j < mv.n_fns; j++) {
		const struct mv_fn *f = &mv.fns[j];
		const struct mv_desc_fn *d = f->desc;

		if (d->flags & MV_FN_PLAIN)
			continue;
		for (uint32_t i = 0; i < d->n_variants; i++) {
			const struct mv_desc_variant *x = &f->variants[i];

			for (uint32_t k = 0; k < x->n_guards; k++) {
				struct var_rec *vr = index_find(&var_index,
					mv_desc_guard_var(x, &mv_desc_variant_guards(x)[k]));

				if (!vr || vr->last == f)
					continue;
				vr->last = f;
				vr->refs[vr->n_readers++].fn =
					&((struct fn_rec *)index_find(&fn_index, f->generic))->pub;
			}
		}
	}
	for (size_t i = 0; i < mv.n_vars; i++) {
		struct var_rec *vr = index_find(&var_index, mv.vars[i].addr);

		for (size_t k = 0; k < vr->n_readers; k++)
			vr->refs[k].next = k + 1 < vr->n_readers ? &vr->refs[k + 1] : 0;
		vr->pub.functions_head = vr->n_readers ? vr->refs : 0;
	}
	return 0;
}

static int build(void)
{
	int err = 0;

	for (size_t i = 0; !err && i < mv.n_vars; i++)
		err = build_var(&mv.vars[i]);
	for (size_t i = 0; !err && i < mv.n_vars; i++)
		if (mv.vars[i].flags & MV_VAR_FNPTR)
			err = build_fnptr(&mv.vars[i]);
	for (size_t i = 0; !err && i < mv.n_fns; i++)
		if (!(mv.fns[i].desc->flags & MV_FN_PLAIN))
			err = build_fn(&mv.fns[i]);
	if (!err)
		err = link_readers();
	if (err)
		return mv_error(err, "out of memory for the records of "
				"multiverse_info_fn() and multiverse_info_var()");
	built = 1;
	built_generation = mv.generation;
	return 0;
}

/* What commits and binds change. */
static void refresh(void)
{
	for (size_t i = 0; i < mv.n_vars; i++) {
		const struct mv_var *v = &mv.vars[i];
		struct var_rec *vr = index_find(&var_index, v->addr);

		vr->pub.flag_bound = !!v->bound;
		if (v->flags & MV_VAR_FNPTR) {
			struct fn_rec *r = index_find(&fn_index, v->addr);

			r->mvfns->function_body = v->active;
			r->pub.active_mvfn = v->active ? r->mvfns : 0;
		}
	}
	for (size_t i = 0; i < mv.n_fns; i++) {
		const struct mv_fn *f = &mv.fns[i];
		const struct mv_desc_fn *d = f->desc;
		struct mv_luhsra_mvfn *active = 0;
		struct fn_rec *r;

		if (d->flags & MV_FN_PLAIN)
			continue;
		r = index_find(&fn_index, f->generic);
		for (uint32_t k = 0; f->active != f->generic && !active && k < d->n_variants; k++)
			if (mv_desc_variant_body(&f->variants[k]) == f->active)
				active = &r->mvfns[k];
		r->pub.active_mvfn = active;
	}
}

/* The records, up to date; under the lock. */
static int update(void)
{
	int err = mv_sync();

	if (err >= 0 && (!built || built_generation != mv.generation))
		err = build();
	if (err >= 0)
		refresh();
	return err;
}

MV_API struct mv_luhsra_fn *multiverse_luhsra_info_fn(void *fn)
{
	struct mv_luhsra_fn *info = 0;
	const struct mv_fn *f;
	const struct mv_var *v;

	mv_lock();
	if (update() >= 0) {
		f = mv_find_fn_named(fn);
		v = f ? 0 : mv_find_var(fn);
		if ((f && !(f->desc->flags & MV_FN_PLAIN)) || (v && v->flags & MV_VAR_FNPTR))
			info = &((struct fn_rec *)index_find(&fn_index, f ? f->generic : v->addr))->pub;
	}
	handed_out |= !!info;
	mv_unlock();
	return info;
}

MV_API struct mv_luhsra_var *multiverse_luhsra_info_var(void *var)
{
	struct mv_luhsra_var *info = 0;
	const struct mv_var *v;

	mv_lock();
	if (update() >= 0 && (v = mv_find_var(var)))
		info = &((struct var_rec *)index_find(&var_index, v->addr))->pub;
	handed_out |= !!info;
	mv_unlock();
	return info;
}

/* After a commit, revert or bind: the records a program holds say what
 * changed.  Nothing to do before any was handed out. */
MV_API void multiverse_luhsra_update(void)
{
	mv_lock();
	if (handed_out)
		update();
	mv_unlock();
}
