/* SPDX-License-Identifier: MIT */
/*
 * The records of the original implementation's API
 * (include/multiverse-luhsra.h): struct mv_info_fn with its variant
 * records, struct mv_info_var with the functions that read it.
 *
 * Programs written for it keep the pointers these calls return and read
 * them later, so a record never moves: one is made per function and per
 * switch the first time anything is asked, and kept.  Its variant and
 * guard arrays, and a switch's list of functions, point into each other,
 * so every call refreshes all of them from the tables at once: the
 * records then agree with each other and with the tables.  A record of a
 * module that was unloaded is no longer refreshed, nor handed out.
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
	size_t cap_refs;
};

/* Records by address (a function's generic, a switch's address),
 * sorted, each one allocated once. */
struct rec_index {
	void **key_rec;           /* pairs: key, record */
	size_t n, cap;
};

static struct rec_index fn_index, var_index;

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

static int fill_var(const struct mv_var *v)
{
	struct var_rec *r = index_get(&var_index, v->addr, sizeof *r);

	if (!r)
		return -ENOMEM;
	set_name(&r->pub.name, v->name);
	r->pub.variable_location = v->addr;
	r->pub.info = 0;
	r->pub.variable_width = v->width;
	r->pub.flag_tracked = !!(v->flags & MV_VAR_TRACKED);
	r->pub.flag_signed = !!(v->flags & MV_VAR_SIGNED);
	r->pub.flag_bound = !!v->bound;
	r->pub.functions_head = 0;
	return 0;
}

/* *arr has room for *cap elements of size bytes: make it want. */
static int reserve(void *arr, size_t *cap, size_t want, size_t size)
{
	void *p;

	if (want <= *cap)
		return 0;
	if (!(p = realloc(*(void **)arr, want * size)))
		return -ENOMEM;
	*(void **)arr = p;
	*cap = want;
	return 0;
}

static int fill_fn(const struct mv_fn *f)
{
	const struct mv_desc_fn *d = f->desc;
	struct fn_rec *r = index_get(&fn_index, f->generic, sizeof *r);
	size_t n_guards = 0, k = 0;

	if (!r)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->n_variants; i++)
		n_guards += d->variants[i].n_guards;
	if (reserve(&r->mvfns, &r->cap_mvfns, d->n_variants, sizeof *r->mvfns) < 0 ||
	    reserve(&r->guards, &r->cap_guards, n_guards, sizeof *r->guards) < 0)
		return -ENOMEM;
	set_name(&r->pub.name, d->name);
	r->pub.function_body = f->generic;
	r->pub.n_mv_functions = d->n_variants;
	r->pub.mv_functions = r->mvfns;
	r->pub.patchpoints_head = 0;
	r->pub.active_mvfn = 0;
	for (uint32_t i = 0; i < d->n_variants; i++) {
		const struct mv_desc_variant *x = &d->variants[i];
		struct mv_luhsra_mvfn *m = &r->mvfns[i];

		m->function_body = x->body;
		m->n_assignments = x->n_guards;
		m->assignments = &r->guards[k];
		m->type = x->inlining == MV_INLINE_OK && !x->copy_len ? MVFN_TYPE_NOP : MVFN_TYPE_NONE;
		m->constant = 0;
		for (uint32_t j = 0; j < x->n_guards; j++, k++) {
			const struct mv_desc_guard *g = &x->guards[j];
			const struct mv_var *v = mv_find_var(g->var);
			int sgn = v && v->flags & MV_VAR_SIGNED;
			struct var_rec *vr = v ? index_find(&var_index, v->addr) : 0;

			if (vr)
				r->guards[k].variable.info = &vr->pub;
			else
				r->guards[k].variable.location = g->var;
			r->guards[k].lower_bound = bound32(g->low, sgn);
			r->guards[k].upper_bound = bound32(g->high, sgn);
		}
		if (!r->pub.active_mvfn && f->active != f->generic && x->body == f->active)
			r->pub.active_mvfn = m;
	}
	return 0;
}

/* A function-pointer switch as that implementation lists it: a function
 * record with n_mv_functions = -1 and one record of what it is bound to. */
static int fill_fnptr(const struct mv_var *v)
{
	struct fn_rec *r = index_get(&fn_index, v->addr, sizeof *r);

	if (!r)
		return -ENOMEM;
	if (reserve(&r->mvfns, &r->cap_mvfns, 1, sizeof *r->mvfns) < 0)
		return -ENOMEM;
	set_name(&r->pub.name, v->name);
	r->pub.function_body = v->addr;
	r->pub.n_mv_functions = -1;
	r->pub.mv_functions = r->mvfns;
	r->pub.patchpoints_head = 0;
	r->mvfns->function_body = v->active;
	r->mvfns->n_assignments = 0;
	r->mvfns->assignments = 0;
	r->pub.active_mvfn = v->active ? r->mvfns : 0;
	return 0;
}

/* Each switch's list of the functions that read it. */
static int link_readers(void)
{
	for (size_t i = 0; i < mv.n_vars; i++) {
		const struct mv_var *v = &mv.vars[i];
		struct var_rec *vr = index_find(&var_index, v->addr);
		size_t n = 0;

		if (!vr)
			return -ENOMEM;
		for (size_t j = 0; j < mv.n_fns; j++)
			n += !(mv.fns[j].desc->flags & MV_FN_PLAIN) && mv_reads(mv.fns[j].desc, v->addr);
		if (reserve(&vr->refs, &vr->cap_refs, n, sizeof *vr->refs) < 0)
			return -ENOMEM;
		n = 0;
		for (size_t j = 0; j < mv.n_fns; j++) {
			const struct mv_fn *f = &mv.fns[j];

			if (f->desc->flags & MV_FN_PLAIN || !mv_reads(f->desc, v->addr))
				continue;
			vr->refs[n].fn = &((struct fn_rec *)index_find(&fn_index, f->generic))->pub;
			vr->refs[n].next = 0;
			if (n)
				vr->refs[n - 1].next = &vr->refs[n];
			n++;
		}
		vr->pub.functions_head = n ? vr->refs : 0;
	}
	return 0;
}

static int refresh(void)
{
	int err = mv_sync();

	for (size_t i = 0; err >= 0 && i < mv.n_vars; i++)
		err = fill_var(&mv.vars[i]);
	for (size_t i = 0; err >= 0 && i < mv.n_vars; i++)
		if (mv.vars[i].flags & MV_VAR_FNPTR)
			err = fill_fnptr(&mv.vars[i]);
	for (size_t i = 0; err >= 0 && i < mv.n_fns; i++)
		if (!(mv.fns[i].desc->flags & MV_FN_PLAIN))
			err = fill_fn(&mv.fns[i]);
	if (err >= 0)
		err = link_readers();
	if (err == -ENOMEM)
		mv_error(err, "out of memory for the records of multiverse_info_fn() and multiverse_info_var()");
	return err;
}

MV_API struct mv_luhsra_fn *multiverse_luhsra_info_fn(void *fn)
{
	struct mv_luhsra_fn *info = 0;
	const struct mv_fn *f;
	const struct mv_var *v;

	mv_lock();
	if (refresh() >= 0) {
		f = mv_find_fn(fn);
		v = f ? 0 : mv_find_var(fn);
		if ((f && !(f->desc->flags & MV_FN_PLAIN)) || (v && v->flags & MV_VAR_FNPTR))
			info = &((struct fn_rec *)index_find(&fn_index, f ? f->generic : v->addr))->pub;
	}
	mv_unlock();
	return info;
}

MV_API struct mv_luhsra_var *multiverse_luhsra_info_var(void *var)
{
	struct mv_luhsra_var *info = 0;
	const struct mv_var *v;

	mv_lock();
	if (refresh() >= 0 && (v = mv_find_var(var)))
		info = &((struct var_rec *)index_find(&var_index, v->addr))->pub;
	mv_unlock();
	return info;
}
