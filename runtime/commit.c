/* SPDX-License-Identifier: MIT */
/*
 * Commit and revert: binding functions and function-pointer switches to
 * the switches' current values, and releasing them again.
 */
#include "internal.h"

static const struct mv_var *lookup(const void *addr)
{
	return mv_find_var(addr);
}

/* The jump at f's entry to f->redirect: direct, or through a gate. */
static int entry_jump(const struct mv_fn *f, uint8_t *jmp)
{
	uintptr_t at = (uintptr_t)f->entry.addr;
	const void *gate;

	if (!mv_arch_entry_jump(jmp, at, (uintptr_t)f->redirect))
		return 0;
	gate = mv_gate(at, f->redirect);
	if (gate && !mv_arch_entry_jump(jmp, at, (uintptr_t)gate))
		return 0;
	return mv_error(-ERANGE, "multiverse_redirect: %s: %" MV_PRIaddr " is beyond a jump's "
			"reach of its entry, and no far-call gate can be placed near it; "
			"nothing was written", f->name, f->redirect);
}

/*
 * A precommitted function whose entry or a site held other bytes when
 * last read (tables.c, site.c) runs code the runtime cannot tell: it is
 * read again at each batch that would change it, and until it is as
 * precommitted the batch fails, writing nothing, rather than leave that
 * code behind (musl's pthread_create() then starts no thread).  A batch
 * that unloads a module reads nothing new, and passes it by.
 */
static void fresh(struct mv_fn *f)
{
	if (!f->stale || mv_poke_must_forward)
		return;
	f->stale = 0;
	if (f->entry.state == MV_AREA_INVALID) {
		f->entry = (struct mv_area){ 0 };
		mv_capture_entry(f);
	}
}

static int stale(const struct mv_fn *f)
{
	if (mv_poke_must_forward)
		return 0;
	return mv_error(-EAGAIN, "function %s: precommitted, but its entry or a call site holds "
			"other bytes (a debugger's breakpoint?); nothing was changed", f->name);
}

/* mv_apply_fn() for a function redirected by multiverse_redirect()
 * (redirect.c): body (NULL: the generic) is only recorded, and the entry
 * and sites reach f->redirect, a function's own address, through a
 * far-call gate where it is beyond a direct branch's reach. */
static int redirect_apply(struct mv_fn *f, void *body)
{
	uint8_t jmp[MV_ARCH_ENTRY_LEN];
	int all, err;

	fresh(f);
	all = mv_check_sites(f->site0, f->n_sites, f, f->name, &f->checked);
	if (f->stale)
		return stale(f);
	f->active = body ? body : f->generic;
	err = entry_jump(f, jmp);
	if (!err)
		err = mv_area_set(&f->entry, jmp, MV_AREA_BRANCH, "entry", f->name);
	if (!err)
		err = mv_sites_point(f->site0, f->n_sites, all, 1, f->redirect, 0, 0, 0,
				     f->name);
	return err < 0 ? err : 0;
}

/*
 * Points a function at body, or back at its generic (body NULL): what
 * commit and revert choose.  A redirected function only records the
 * choice, which its entry and sites follow once the redirect is undone
 * (redirect.c).  Otherwise the entry is written first and always gets
 * the jmp, even where every site inlines the body: it catches the calls
 * we do not know, through pointers, from other modules, or from skipped
 * sites.  A function whose entry cannot hold the jmp is never committed,
 * so a committed function runs its variant on every path.  The sites follow.  Returns 1 if the
 * body calls reach changed, else 0 or -errno.
 */
int mv_apply_fn(struct mv_fn *f, void *body)
{
	const struct mv_desc_fn *d = f->desc;
	uint8_t jmp[MV_ARCH_ENTRY_LEN];
	struct mv_body inl, *inl_p;
	const struct mv_desc_variant *v = 0;
	const uint8_t *pristine;
	int changed, err, all;

	if (f->redirect)
		return redirect_apply(f, body);
	fresh(f);
	/* a revert reads nothing new: a site never built was never written,
	 * but where the file was precommitted */
	all = body || (d->flags & MV_FN_PRECOMMITTED) ?
	      mv_check_sites(f->site0, f->n_sites, f, f->name, &f->checked) :
	      f->checked == mv.generation;
	if (f->stale)
		return stale(f);
	if (body && mv_arch_entry_jump(jmp, (uintptr_t)f->entry.addr, (uintptr_t)body)) {
		mv_report("function %s: variant %" MV_PRIaddr " is out of reach of its entry",
			  f->name, body);
		body = 0;
	}
	err = mv_area_set(&f->entry, body ? jmp : mv_orig(&f->entry),
			  body ? MV_AREA_BRANCH : MV_AREA_ORIG, "entry", f->name);
	if (err)
		return err;
	if (f->entry.state < MV_AREA_ORIG)
		body = 0;
	changed = (body ? body : f->generic) != f->active;
	f->active = body ? body : f->generic;
	if (body)
		mv_arch_classify(body, &inl);
	/* a body no call can hold: no site tries to (a region may still
	 * take a copy of it, region.c) */
	inl_p = body && inl.kind != MV_BODY_OTHER ? &inl : 0;
	for (size_t i = 0; body && i < d->n_variants && !v; i++) {
		const struct mv_desc_variant *x = &f->variants[i];

		if (mv_desc_variant_body(x) == body && x->inlining == MV_INLINE_OK)
			v = x;
	}
	pristine = v ? mv_region_pristine(f, v) : 0;
	err = mv_sites_point(f->site0, f->n_sites, all, 0, body, inl_p, v, pristine,
			     f->name);
	return err ? err : changed;
}

/* What the last commit or revert chose for f: a body, or NULL for the
 * generic; what mv_apply_fn() takes to write it again. */
void *mv_chosen(const struct mv_fn *f)
{
	return f->active != f->generic ? f->active : 0;
}

/* The body the switches' current values select, or NULL for the generic
 * (always, for a plain function: its one record is its own code). */
void *mv_selected(const struct mv_fn *f)
{
	const struct mv_desc_variant *v = f->desc->flags & MV_FN_PLAIN ? 0 :
		mv_select(f->variants, f->desc->n_variants, lookup);
	return v ? mv_desc_variant_body(v) : 0;
}

static int point_fn(struct mv_fn *f, int bind)
{
	return mv_apply_fn(f, bind ? mv_selected(f) : 0);
}

/* The description of target's code, if target is a plain multiversed
 * function (MV_FN_PLAIN) that may be copied: with its pristine bytes.
 * Not while it is redirected: a copy would not follow.
 * target must be the recorded code itself: where the function's symbol
 * resolves elsewhere (interposed, or a non-PIE executable's PLT entry),
 * the record describes code that target does not run. */
static const struct mv_desc_variant *plain_code(void *target, const uint8_t **pristine)
{
	struct mv_fn *f = target ? mv_find_fn(target) : 0;
	const struct mv_desc_variant *v;

	if (!f || f->redirect || !(f->desc->flags & MV_FN_PLAIN) || f->desc->n_variants != 1 ||
	    (uintptr_t)target != f->code)
		return 0;
	v = &f->variants[0];
	if (v->inlining != MV_INLINE_OK || !(*pristine = mv_region_pristine(f, v)))
		return 0;
	return v;
}

/* A function-pointer switch is committed to a target (the pointer's
 * value at commit): its sites call that directly, wherever it is not
 * NULL and within reach, or hold a copy of its code where they are
 * padded and it is a plain multiversed function that may be copied.  NULL
 * restores the indirect calls, but for the sites in probes' "not NULL"
 * variants, which stay bound to `keep` if it is not NULL.  A site beyond
 * a direct call's reach branches to a far-call gate near it (platform.h,
 * mv_gate), or where no gate can be placed keeps its indirect call
 * (report_unbound()).
 *
 * The switch counts as committed, and its probe guards (NULL, not NULL)
 * are evaluated against target, only where every site will reach target:
 * a "not NULL" variant has no test before its call, so an indirect call
 * left there would follow a later write of NULL into a crash. */
int mv_apply_fnptr(struct mv_var *v, void *target, void *keep)
{
	int changed = target != v->active, all_bound = 1, kept = 0, err;
	const uint8_t *pristine = 0, *keep_pristine = 0;
	const struct mv_desc_variant *code = plain_code(target, &pristine);
	const struct mv_desc_variant *keep_code = keep ? plain_code(keep, &keep_pristine) : 0;

	if (target || keep)
		mv_check_sites(v->site0, v->n_sites, 0, v->name, &v->checked);
	for (size_t i = v->site0; i < v->site0 + v->n_sites; i++) {
		struct mv_site *s = mv_site_if_built(i);
		int stays;

		if (!s) {       /* never built: as a site never resolved */
			all_bound &= !target;
			kept |= !target && keep &&
				(mv_site_desc(i)->flags & MV_SITE_IN_PROBE_VARIANT);
			continue;
		}
		stays = !target && keep && s->in_probe_variant;

		err = stays ? mv_site_point(s, keep, 0, keep_code, keep_pristine, v->name)
			    : mv_site_point(s, target, 0, code, pristine, v->name);
		if (err)
			return err;
		all_bound &= !target || s->aim > MV_AREA_ORIG;
		kept |= stays;
	}
	v->active = target;
	v->reached = target ? target : kept ? keep : 0;
	v->committed = all_bound;
	return changed;
}

/* Switches bound to f, whose sites may hold a copy of its code
 * (plain_code()): rebound, to a call that reaches its entry
 * while it is redirected, to a copy again once it is not. */
static int rebind_switches(const struct mv_fn *f)
{
	for (size_t i = 0; i < mv.n_vars; i++) {
		struct mv_var *v = &mv.vars[i];
		int err;

		if (!(v->flags & MV_VAR_FNPTR) ||
		    (mv_find_fn(v->active) != f && mv_find_fn(v->reached) != f))
			continue;
		err = mv_apply_fnptr(v, v->active, v->reached);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Redirects f to new (NULL: undoes it), entry, sites and the switches
 * bound to it, in the batch being built. */
int mv_redirect_set(struct mv_fn *f, void *new)
{
	int err;

	f->redirect = new;      /* restored by mv_batch() if the batch fails */
	err = mv_apply_fn(f, mv_chosen(f));
	if (err >= 0 && new && f->entry.state < MV_AREA_ORIG)
		err = mv_error(-EINVAL, "multiverse_redirect: %s: its entry changed behind our "
			       "back; nothing was written", f->name);
	return err < 0 ? err : rebind_switches(f);
}

/* After a batch is written: the sites of bound function-pointer switches
 * that still hold their indirect call, since their target lies beyond a
 * direct call's reach and no far-call gate could be placed near them.
 * They follow writes to the switch, which is not what "bound" promises:
 * reported once for each switch, target and number of such sites, also
 * when a module loaded later adds some. */
static void report_unbound(void)
{
	for (size_t i = 0; i < mv.n_vars; i++) {
		struct mv_var *v = &mv.vars[i];
		unsigned n = 0;

		if (!(v->flags & MV_VAR_FNPTR))
			continue;
		for (size_t k = v->site0; v->active && k < v->site0 + v->n_sites; k++)
			n += mv_site_state_at(k) == MV_AREA_ORIG;
		if (n && (n != v->unbound || v->active != v->unbound_target))
			mv_report("switch %s: %u call site(s) cannot reach %" MV_PRIaddr " directly, nor "
				  "through a gate near them; they stay indirect and follow writes to the "
				  "switch until the next commit",
				  v->name, n, v->active);
		v->unbound = n;
		v->unbound_target = v->active;
	}
}

/* A probe committed NULL keeps its sites in "not NULL" variants bound
 * to the function they reached: a thread still inside such a variant,
 * selected by the last commit, calls that once more, never NULL (the
 * "NULL" variant that the same batch selects makes no call).  Only
 * revert and unloading give them back their indirect calls. */
static int point_fnptr(struct mv_var *v, int bind)
{
	void *target = bind ? *(void **)v->addr : 0;
	int r = mv_apply_fnptr(v, target, bind ? v->reached : 0);

	v->committed &= bind;
	return r;
}

/* Sums the changes of one more function or switch into *total. */
static int add(int *total, int r)
{
	if (r < 0)
		return r;
	*total += r;
	return 0;
}

static int op_all(const char *api, void *addr, int bind)
{
	int n = 0, err = 0;

	(void)api, (void)addr;
	/* pointer switches first: probe guards see what they are bound to */
	for (size_t i = 0; i < mv.n_vars && !err; i++)
		if (mv.vars[i].flags & MV_VAR_FNPTR)
			err = add(&n, point_fnptr(&mv.vars[i], bind));
	for (size_t i = 0; i < mv.n_fns && !err; i++)
		err = add(&n, point_fn(&mv.fns[i], bind));
	return err ? err : n;
}

/* A switch and the functions specialized on it.  A pointer switch is
 * bound first; the functions that test it against NULL (probes) are then
 * selected again, so that none keeps a "not NULL" variant whose call no
 * longer reaches a function. */
static int point_switch(struct mv_var *v, int bind)
{
	int n = 0, err = 0;

	if (v->flags & MV_VAR_FNPTR)
		err = add(&n, point_fnptr(v, bind));
	for (size_t i = 0; i < mv.n_fns && !err; i++)
		if (mv_reads(mv.fns[i].desc, v->addr))
			err = add(&n, point_fn(&mv.fns[i], bind));
	return err ? err : n;
}

static int op_refs(const char *api, void *addr, int bind)
{
	struct mv_var *v = mv_find_var(addr);

	if (!v)
		return mv_error(-ENOENT, "%s: %" MV_PRIaddr " is not a multiverse switch", api, addr);
	return point_switch(v, bind);
}

static int op_one(const char *api, void *addr, int bind)
{
	struct mv_fn *f = mv_find_fn_named(addr);
	struct mv_var *v = f ? 0 : mv_find_var(addr);

	if (f)
		return point_fn(f, bind);
	if (v && v->flags & MV_VAR_FNPTR)
		return point_switch(v, bind);
	return mv_error(-ENOENT, "%s: %" MV_PRIaddr " is not a multiversed function or function-pointer switch",
			api, addr);
}

/* The bodies functions and pointer switches reach, to restore when a
 * batch could not be written: room for them is made when the tables
 * grow (mv_batch_reserve), so that no batch allocates. */
struct saved_fn {
	void *active, *redirect;
};
struct saved_var {
	void *active, *reached;
	int committed;
};
static struct saved_fn *saved_fn;
static struct saved_var *saved_var;
static size_t cap_fn, cap_var;

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n <= *cap)
		return 0;
	if (n > SIZE_MAX / size || !(q = realloc(*p, n * size)))
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

int mv_batch_reserve(size_t n_fns, size_t n_vars)
{
	return grow((void **)&saved_fn, &cap_fn, n_fns, sizeof *saved_fn) ||
	       grow((void **)&saved_var, &cap_var, n_vars, sizeof *saved_var) ? -ENOMEM : 0;
}

static void save_actives(void)
{
	for (size_t i = 0; i < mv.n_fns; i++)
		saved_fn[i] = (struct saved_fn){ mv.fns[i].active, mv.fns[i].redirect };
	for (size_t i = 0; i < mv.n_vars; i++)
		saved_var[i] = (struct saved_var){ mv.vars[i].active, mv.vars[i].reached,
						   mv.vars[i].committed };
}

static void restore_actives(void)
{
	for (size_t i = 0; i < mv.n_fns; i++) {
		mv.fns[i].active = saved_fn[i].active;
		mv.fns[i].redirect = saved_fn[i].redirect;
	}
	for (size_t i = 0; i < mv.n_vars; i++) {
		mv.vars[i].active = saved_var[i].active;
		mv.vars[i].reached = saved_var[i].reached;
		mv.vars[i].committed = saved_var[i].committed;
	}
}

/* Areas a failed batch left stuck (poke.c) are rewritten by every later
 * batch, with the bytes the runtime reports for them, until that works. */
static void sweep_stuck(void)
{
	for (size_t i = 0; i < mv.n_fns; i++)
		if (mv.fns[i].entry.stuck)
			mv_area_set(&mv.fns[i].entry, mv_cur(&mv.fns[i].entry),
				    mv.fns[i].entry.state, "entry", mv.fns[i].name);
	for (size_t i = 0; i < mv.n_sites; i++) {
		struct mv_site *s = mv_site_if_built(i);

		if (s && s->area.stuck)
			mv_area_set(&s->area, mv_cur(&s->area), s->area.state,
				    "call site", "a stuck site");
		if (s && s->region && s->region->stuck)
			mv_region_sweep(s);
	}
}

/* One batch of text writes (poke.c): all or nothing, bookkeeping
 * included.  The caller holds the lock and has synced the tables. */
int mv_batch(int (*op)(void *ctx), void *ctx)
{
	int r, err;

	save_actives();
	r = op(ctx);
	if (r >= 0 && mv_poke_n_stuck)
		sweep_stuck();
	if (r < 0)
		mv_poke_cancel();       /* nothing of a half-built batch is written */
	err = r < 0 ? 0 : mv_poke_flush();
	if ((err && !mv_poke_forward) || r < 0)
		restore_actives();
	if (err)
		r = err;
	else if (r >= 0)
		report_unbound();
	return r;
}

struct api_call {
	const char *api;
	int (*op)(const char *, void *, int);
	void *addr;
	int bind;
};

static int api_op(void *ctx)
{
	struct api_call *c = ctx;
	return c->op(c->api, c->addr, c->bind);
}

/* Whether the last whole-program call was a commit: modules loaded
 * meanwhile are bound at once (module.c). */
int mv_committed_all;

/* Whether any function or function-pointer switch is bound, or any
 * function redirected: only then may a site reach into a module being
 * unloaded. */
int mv_committed_any(void)
{
	for (size_t i = 0; i < mv.n_fns; i++)
		if (mv.fns[i].active != mv.fns[i].generic || mv.fns[i].redirect)
			return 1;
	for (size_t i = 0; i < mv.n_vars; i++)
		if (mv.vars[i].flags & MV_VAR_FNPTR && mv.vars[i].reached)
			return 1;
	return 0;
}

/* Every patching call is one batch, under the lock. */
static int run(const char *api, int (*op)(const char *, void *, int),
	       void *addr, int bind)
{
	struct api_call c = { api, op, addr, bind };
	int r;

	mv_lock();
	r = mv_sync();
	if (r >= 0)
		r = mv_batch(api_op, &c);
	if ((r >= 0 || mv_poke_forward) && op == op_all)
		mv_committed_all = bind;
	mv_unlock();
	return r;
}

static int null_error(const char *api)
{
	return mv_error(-EINVAL, "%s: NULL address", api);
}

MV_API int multiverse_commit(void)
{
	return run(__func__, op_all, 0, 1);
}

MV_API int multiverse_revert(void)
{
	return run(__func__, op_all, 0, 0);
}

MV_API int multiverse_commit_refs(void *var)
{
	return var ? run(__func__, op_refs, var, 1) : null_error(__func__);
}

MV_API int multiverse_revert_refs(void *var)
{
	return var ? run(__func__, op_refs, var, 0) : null_error(__func__);
}

MV_API int multiverse_commit_fn(void *fn)
{
	return fn ? run(__func__, op_one, fn, 1) : null_error(__func__);
}

MV_API int multiverse_revert_fn(void *fn)
{
	return fn ? run(__func__, op_one, fn, 0) : null_error(__func__);
}

MV_API int multiverse_is_committed(void *fn)
{
	struct mv_fn *f;
	struct mv_var *v;
	int r;

	if (!fn)
		return null_error(__func__);
	mv_lock();
	r = mv_sync();
	if (r >= 0) {
		f = mv_find_fn_named(fn);
		v = f ? 0 : mv_find_var(fn);
		if (f)
			r = f->active != f->generic;
		else if (v && v->flags & MV_VAR_FNPTR)
			r = v->active != 0;
		else
			r = mv_error(-ENOENT, "%s: %" MV_PRIaddr " is not a multiversed function or function-pointer switch",
				     __func__, fn);
	}
	mv_unlock();
	return r;
}

MV_API int multiverse_bind(void *var, int state)
{
	struct mv_var *v;
	int r;

	if (!var)
		return null_error(__func__);
	if (state < -1 || state > 1)
		return mv_error(-EINVAL, "%s: state %d is not 1, 0 or -1", __func__, state);
	mv_lock();
	r = mv_sync();
	if (r >= 0) {
		v = mv_find_var(var);
		if (!v)
			r = mv_error(-ENOENT, "%s: %" MV_PRIaddr " is not a multiverse switch", __func__, var);
		else if (state >= 0)
			r = v->bound = state;
		else
			r = v->bound;
	}
	mv_unlock();
	return r;
}
