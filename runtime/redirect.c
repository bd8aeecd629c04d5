/* SPDX-License-Identifier: MIT */
/*
 * Live update: multiverse_redirect(old, new) sends every call of the
 * multiversed function old to new, typically a new version of it in a
 * shared object loaded with dlopen().
 *
 * A redirect is one more thing a function's patch areas can reach,
 * written by the same batches as commit, with the same protocol (poke.c)
 * and the same all-or-nothing rule:
 *   - old's entry jumps to new, so calls through pointers, from modules
 *     without sites, or from sites left alone reach it;
 *   - each of old's sites calls new directly, or where new is beyond a
 *     direct call's reach, through a far-call gate near the site
 *     (platform.h, mv_gate); the entry too.  A gate is an indirect jump,
 *     which is why new must be a function's own address, whose landing
 *     pad (endbr64, bti c) it may need, never a variant's body;
 *   - commits and reverts of old go on choosing its body (mv_fn.active),
 *     but write nothing while it is redirected; multiverse_redirect(old,
 *     NULL) then writes what they chose.  A new that is multiversed
 *     follows its own commits: old's sites call its entry, which jumps
 *     to its variant;
 *   - sites of function-pointer switches bound to old follow: a copy of
 *     a plain old in their padding becomes a call, which its entry sends
 *     on (mv_redirect_set() in commit.c);
 *   - when new's module unloads, old returns to its chosen body in the
 *     batch that unloads (module.c).  A module without records of ours
 *     is not seen going, so redirecting into it keeps it loaded for good,
 *     pinned before the batch and outside our lock.
 * The writing is in commit.c (redirect_apply(), mv_redirect_set()), which
 * the kernel shares; this file, the API and its refusals, is user
 * space's only (the kernel has livepatch).
 *
 * Nothing migrates data: new starts from whatever state old left.
 */
#include "internal.h"

/* The runtime's entry points, which a static link puts in the program's
 * own module. */
static int is_api(const void *p)
{
	static const void *const api[] = {
		multiverse_init, multiverse_commit, multiverse_revert,
		multiverse_commit_refs, multiverse_revert_refs,
		multiverse_commit_fn, multiverse_revert_fn,
		multiverse_is_committed, multiverse_bind, multiverse_redirect,
		multiverse_info_fn, multiverse_info_var, multiverse_info_site,
		multiverse_dump_info, multiverse_last_error, multiverse_version,
		__multiverse_register_module, __multiverse_unregister_module,
	};

	for (size_t i = 0; i < sizeof api / sizeof *api; i++)
		if (api[i] == p)
			return 1;
	return 0;
}

/* The function whose variant p is, if p is a variant's body and not a
 * function's own address. */
static const struct mv_fn *variant_of(const void *p)
{
	for (size_t i = 0; i < mv.n_fns; i++) {
		const struct mv_desc_fn *d = mv.fns[i].desc;

		if (d->flags & MV_FN_PLAIN)
			continue;
		for (uint32_t k = 0; k < d->n_variants; k++)
			if (mv_desc_variant_body(&mv.fns[i].variants[k]) == p)
				return &mv.fns[i];
	}
	return 0;
}

/* Whether following redirects from p comes back to f. */
static int loops(const struct mv_fn *f, const void *p)
{
	const struct mv_fn *g;

	for (size_t hops = 0; hops <= mv.n_fns; hops++) {
		if (p == f->generic || (uintptr_t)p == f->code)
			return 1;
		if (!(g = mv_find_fn(p)) || !g->redirect)
			return 0;
		p = g->redirect;
	}
	return 1;
}

/* Whether the module holding p registered records of ours: its
 * unloading is then seen (module.c). */
static int registered(const void *p)
{
	struct mv_span spans[MV_SPANS_MAX];
	size_t n = mv_module_spans(p, spans, MV_SPANS_MAX);

	return n && mv_registered_in(spans, n);
}

/* Why old cannot be sent to new, as an error; 0 if it can. */
static int refuse(const char *api, const void *old, const struct mv_fn *f, void *new)
{
	const struct mv_fn *g;

	if (!f)
		return mv_error(-ENOENT, "%s: %" MV_PRIaddr " is not a multiversed function; "
				"nothing was written", api, old);
	if (!new)
		return 0;       /* undoing works whatever became of the entry */
	if (f->entry.state < MV_AREA_ORIG)
		return mv_error(-EINVAL, "%s: %s: its entry cannot be patched (%s); "
				"nothing was written", api, f->name,
				f->entry.state == MV_AREA_SKIPPED ? "it changed behind our back" :
				"not the NOP the compiler plants");
	if (loops(f, new))
		return mv_error(-ELOOP, "%s: %s: %" MV_PRIaddr " is %s; nothing was written", api,
				f->name, new, new == old ? "the function itself" :
				"redirected back to it");
	if (is_api(new) || mv_in_runtime_module(new))
		return mv_error(-EINVAL, "%s: %s: %" MV_PRIaddr " is inside the multiverse "
				"runtime; nothing was written", api, f->name, new);
	if (!mv_is_code(new))
		return mv_error(-EFAULT, "%s: %s: %" MV_PRIaddr " is not in an executable segment "
				"of a loaded module; nothing was written", api, f->name, new);
	if (!mv_find_fn(new) && (g = variant_of(new)))
		return mv_error(-EINVAL, "%s: %s: %" MV_PRIaddr " is a variant of %s, which "
				"may lack a landing pad; redirect to a function's own address; "
				"nothing was written", api, f->name, new, g->name);
	return 0;
}

struct redirect {
	void *old, *new;
};

static int op_redirect(void *ctx)
{
	struct redirect *r = ctx;
	struct mv_fn *f = mv_find_fn_named(r->old);
	int err = refuse("multiverse_redirect", r->old, f, r->new);

	if (err || f->redirect == r->new)
		return err;
	return mv_redirect_set(f, r->new);
}

MV_API int multiverse_redirect(void *old_fn, void *new_fn)
{
	struct redirect r = { old_fn, new_fn };
	int err, pin = 0;

	if (!old_fn)
		return mv_error(-EINVAL, "multiverse_redirect: NULL address");
	/* A module without records is pinned before the batch, outside our
	 * lock: dladdr() and dlopen() take the dynamic linker's lock, which
	 * a module's constructor or destructor holds while it takes ours. */
	mv_lock();
	err = mv_sync();
	if (err >= 0)
		err = refuse("multiverse_redirect", old_fn, mv_find_fn_named(old_fn), new_fn);
	pin = !err && new_fn && !registered(new_fn);
	mv_unlock();
	if (err < 0)
		return err;
	if (pin && mv_module_pin(new_fn))
		return mv_error(-ENOENT, "multiverse_redirect: cannot keep the module of %"
				MV_PRIaddr " loaded, whose unloading the runtime would not see; "
				"nothing was written", new_fn);
	mv_lock();
	err = mv_sync();
	if (err >= 0)
		err = mv_batch(op_redirect, &r);
	mv_unlock();
	return err < 0 ? err : 0;
}
