/* SPDX-License-Identifier: MIT */
/*
 * Modules that come and go: shared objects loaded with dlopen() after a
 * commit, and modules being unloaded by dlclose().
 *
 * Loading.  A module that registers while anything is committed is bound
 * at once, from its constructor: its call sites to the body each callee
 * reaches now, whichever call committed it (multiverse_commit_refs() of a
 * spinlock switch, say), and after multiverse_commit() (until a
 * whole-program revert) also its own functions, to the switches' current
 * values.  Functions already committed are not selected again, since a
 * switch written since the last commit must still have no effect until
 * the next one.
 *
 * Unloading.  The module's destructor unregisters it while its code is
 * still mapped.  First every area *outside* the module that reaches into
 * it is restored: sites of its functions, sites bound to one of its
 * variants or to a function-pointer target inside it, and functions whose
 * committed variant was chosen by one of its switches, and functions
 * redirected into it, which return to what commit and revert chose.
 * Then its records
 * leave the tables.  Areas inside the module are not written, since they
 * are about to disappear, so unloading at process exit writes nothing.
 */
#include "internal.h"

static int fn_in(const struct mv_fn *f, const struct mv_module *m)
{
	return m && f->desc >= m->fn && f->desc < m->fn_end;
}

static int bind_module(void *ctx)
{
	const struct mv_module *m = ctx;
	int err = 0;

	/* pointer switches first: the module's probes are selected on what
	 * they are bound to, new sites included */
	for (size_t i = 0; i < mv.n_vars && err >= 0; i++)
		if (mv.vars[i].flags & MV_VAR_FNPTR && mv.vars[i].reached)
			err = mv_apply_fnptr(&mv.vars[i], mv.vars[i].active, mv.vars[i].reached);
	for (size_t i = 0; i < mv.n_fns && err >= 0; i++) {
		struct mv_fn *f = &mv.fns[i];

		if (fn_in(f, m)) {
			if (mv_committed_all)
				err = mv_apply_fn(f, mv_selected(f));
		} else if (f->active != f->generic || f->redirect)
			err = mv_apply_fn(f, mv_chosen(f));  /* new sites only */
	}
	return err < 0 ? err : 0;
}

/* While nothing is committed the module only waits to be merged by the
 * next API call, so start-up stays cheap. */
int mv_module_loaded(const struct mv_module *m)
{
	int err;

	if (!mv_committed_all && !mv_committed_any())
		return 0;
	err = mv_sync();
	if (err >= 0)
		err = mv_batch(bind_module, (void *)m);
	return err < 0 ? err : 0;
}

struct unload {
	const struct mv_module *m;      /* NULL: a module without records */
	const struct mv_span *spans;
	size_t n;
};

static int in_spans(const struct unload *u, const void *p)
{
	return mv_in_spans(u->spans, u->n, p);
}

/* A pointer switch that the unloading takes away its target from. */
static int loses_target(const struct mv_var *v, const struct unload *u)
{
	return v && v->flags & MV_VAR_FNPTR && v->reached &&
	       (in_spans(u, v->addr) || in_spans(u, v->reached));
}

/* Whether f's variants test a switch in the module, or a probe bound to
 * a function in it. */
static int reads_switch_in(const struct mv_fn *f, const struct unload *u)
{
	for (uint32_t i = 0; i < f->desc->n_variants; i++) {
		const struct mv_desc_variant *v = &f->variants[i];
		for (uint32_t g = 0; g < v->n_guards; g++) {
			void *var = mv_desc_guard_var(v, &mv_desc_variant_guards(v)[g]);

			if (in_spans(u, var) || loses_target(mv_find_var(var), u))
				return 1;
		}
	}
	return 0;
}

/* Restores the sites of a run that lie outside the module. */
static int restore_sites(const struct unload *u, size_t site0, size_t n,
			 const char *name)
{
	for (size_t i = site0; i < site0 + n; i++) {
		struct mv_site *s = mv_site_if_built(i);
		int err;

		if (!s || in_spans(u, s->area.addr))
			continue;
		err = mv_site_point(s, 0, 0, 0, 0, name);
		if (err)
			return err;
	}
	return 0;
}

static int let_go(void *ctx)
{
	const struct unload *u = ctx;
	int err = 0;

	for (size_t i = 0; i < mv.n_fns && !err; i++) {
		struct mv_fn *f = &mv.fns[i];

		int loses, unredirect;

		if (fn_in(f, u->m)) {
			err = restore_sites(u, f->site0, f->n_sites, f->name);
			continue;
		}
		loses = f->active != f->generic &&
			(in_spans(u, f->active) || reads_switch_in(f, u));
		unredirect = f->redirect && in_spans(u, f->redirect);
		if (loses) {            /* only recorded while redirected */
			err = mv_apply_fn(f, 0);
			err = err < 0 ? err : 0;
		}
		if (unredirect && !err)
			err = mv_redirect_set(f, 0);
	}
	for (size_t i = 0; i < mv.n_vars && !err; i++) {
		struct mv_var *v = &mv.vars[i];

		if (loses_target(v, u)) {
			err = restore_sites(u, v->site0, v->n_sites, v->name);
			v->active = v->reached = 0;
			v->committed = 0;
		}
	}
	return err;
}

int mv_module_unloading(const struct mv_module *m)
{
	struct mv_span spans[MV_SPANS_MAX];
	const void *inside = m->fn < m->fn_end ? (const void *)m->fn :
			     m->var < m->var_end ? (const void *)m->var :
						   (const void *)m->site;

	return mv_spans_unloading(m, spans, mv_module_spans(inside, spans, MV_SPANS_MAX));
}

/* The module whose records are m (NULL for none: a kernel module may have
 * code that sites are bound to without records of its own) and whose
 * memory is spans is going.  The caller holds the lock. */
int mv_spans_unloading(const struct mv_module *m, const struct mv_span *spans, size_t n)
{
	struct unload u = { m, spans, n };
	int err;

	/* The module goes whatever happens: a failed batch may only go
	 * forward (poke.c), and the records of the module are dropped. */
	mv_poke_must_forward = 1;
	err = mv_batch(let_go, &u);
	mv_poke_must_forward = 0;
	if (err < 0) {
		char cause[400];

		snprintf(cause, sizeof cause, "%s", multiverse_last_error());
		/* Before anything was written (no writer, no membarrier, a
		 * blocked trap), nothing can be restored, and dlclose() does
		 * not wait. */
		mv_report("unloading a module: %s%s", cause,
			  strstr(cause, "nothing was written") ?
			  "; sites bound into the module stay so: calling "
			  "through them will crash" : "");
	}
	mv_forget(m, spans, n);
	mv_link();
	return err < 0 ? err : 0;
}
