/* SPDX-License-Identifier: MIT */
/*
 * Module registration, and bringing the tables up to date with it.
 *
 * Registering only records a module's descriptor bounds: it runs in
 * constructors, before main and before anything else of ours.  The next
 * API call merges whatever was registered since the previous one
 * (mv_sync), which is how shared objects loaded later join in.
 */
#include "internal.h"

struct module {
	struct module *next;
	struct mv_module d;
	int merged;
	int touched;          /* a merge was tried: records may be in the tables */
	int stays;            /* found to go only with the process or the
				 runtime (mv_module_stays), at exit */
	int pooled;           /* a place in pool[], taken */
};

/* The first modules' places, so that registering allocates nothing: a
 * process that never calls the API never starts its C library's
 * allocator for us (musl's empty program). */
static struct module pool[8];

static struct module *module_new(void)
{
	for (size_t i = 0; i < sizeof pool / sizeof *pool; i++)
		if (!pool[i].pooled) {
			pool[i] = (struct module){ .pooled = 1 };
			return &pool[i];
		}
	return calloc(1, sizeof(struct module));
}

static void module_free(struct module *m)
{
	if (m >= pool && m < pool + sizeof pool / sizeof *pool)
		m->pooled = 0;
	else
		free(m);
}

/* modules_end is set by the first registration: an initial &modules
 * would be one more relocation at every start of a C library with the
 * runtime in it. */
static struct module *modules, **modules_end;
static int dirty;             /* some module is not merged yet */
static int lost;              /* a module could not be registered */

/* An address inside a module: its first record of any kind. */
static const void *a_record(const struct mv_module *d)
{
	return d->fn < d->fn_end ? (const void *)d->fn :
	       d->var < d->var_end ? (const void *)d->var : (const void *)d->site;
}

static struct module **find(const struct mv_desc_var *var,
			     const struct mv_desc_fn *fn,
			     const struct mv_desc_site *site)
{
	struct module **p;

	for (p = &modules; *p; p = &(*p)->next)
		if ((*p)->d.var == var && (*p)->d.fn == fn && (*p)->d.site == site)
			break;
	return p;
}

/*
 * A module is known by its descriptor arrays: every unit of it passes the
 * same bounds.  A module registering while anything is committed (a
 * dlopen) is bound at once (module.c).  Before main, when nothing is
 * committed, registering only records the bounds.
 */
/* Records module d; the caller holds the lock.  Used by the platforms
 * that register modules themselves (the kernel's vmlinux). */
int mv_register_locked(const struct mv_module *d)
{
	struct module **p = find(d->var, d->fn, d->site), *m;

	if (*p)
		return 0;
	m = module_new();
	if (!m) {
		lost = 1;
		return mv_error(-ENOMEM, "out of memory registering a module: "
				"its code stays generic");
	}
	m->d = *d;
	if (!modules_end)
		modules_end = &modules;
	*modules_end = m;
	modules_end = &m->next;
	dirty = 1;
	return mv_module_loaded(&m->d);
}

/* Versions 4 and 5 are version 6 with fewer addresses as distances: each
 * record's flags say which form each of its fields has. */
static int readable(uint32_t version)
{
	return version >= MV_DESCRIPTOR_VERSION_OLDEST && version <= MV_DESCRIPTOR_VERSION;
}

MV_API int __multiverse_register_module(uint32_t version, uint32_t machine,
					const struct mv_desc_var *var_start,
					const struct mv_desc_var *var_stop,
					const struct mv_desc_fn *fn_start,
					const struct mv_desc_fn *fn_stop,
					const struct mv_desc_site *site_start,
					const struct mv_desc_site *site_stop)
{
	struct mv_module d = { var_start, var_stop, fn_start, fn_stop,
			       site_start, site_stop };
	/* said once for all the units of a module */
	static struct { const void *fn; uint32_t version, machine; } refused;
	int err;

	if (!readable(version) || machine != MV_ARCH_MACHINE) {
		if (refused.fn == (const void *)fn_start && refused.version == version &&
		    refused.machine == machine)
			return -ENOEXEC;
		refused.fn = fn_start;
		refused.version = version;
		refused.machine = machine;
	}
	if (!readable(version))
		return mv_error(-ENOEXEC, "module with functions at %" MV_PRIaddr " has descriptor version %u, this runtime reads versions %u to %u",
				(const void *)fn_start, version, MV_DESCRIPTOR_VERSION_OLDEST,
				MV_DESCRIPTOR_VERSION);
	if (machine != MV_ARCH_MACHINE)
		return mv_error(-ENOEXEC, "module with functions at %" MV_PRIaddr " was compiled for ELF machine %u, this runtime is for %u (%s)",
				(const void *)fn_start, machine, MV_ARCH_MACHINE, MV_ARCH_NAME);
	mv_lock();
	err = mv_register_locked(&d);
	mv_unlock();
	return err;
}

/* multiverse-precommit looks for this name in a file's symbol tables
 * before it precommits the file: the runtime linked in reads precommitted
 * records (docs/precommit.md).  An alias, so that no link keeps the
 * registration without it. */
extern __typeof__(__multiverse_register_module) __multiverse_reads_precommitted
	__attribute__((alias("__multiverse_register_module")));

/*
 * Called from the module's destructor, before its code is unmapped.  Sites
 * of other modules may be bound into it (a function-pointer switch
 * committed to one of its functions) even if its own records never made
 * it into the tables, so it is let go whenever anything may be bound; the
 * other units of a module find it gone, and do nothing unless some
 * module could not be registered at all.
 */
MV_API int __multiverse_unregister_module(uint32_t version, uint32_t machine,
					  const struct mv_desc_var *var_start,
					  const struct mv_desc_var *var_stop,
					  const struct mv_desc_fn *fn_start,
					  const struct mv_desc_fn *fn_stop,
					  const struct mv_desc_site *site_start,
					  const struct mv_desc_site *site_stop)
{
	struct mv_module d = { var_start, var_stop, fn_start, fn_stop,
			       site_start, site_stop };
	struct module **p, *m;
	int err = 0;

	if (!readable(version) || machine != MV_ARCH_MACHINE)
		return -ENOEXEC;
	mv_lock();
	p = find(var_start, fn_start, site_start);
	m = *p;
	/* The program's destructors run at exit: its memory stays until the
	 * process is gone (a C library's with the runtime in it: until the
	 * runtime is), so nothing that reaches into it needs restoring,
	 * and its records stay valid for any API call still to come (from
	 * a later destructor, or from a thread that runs on).  Asked only
	 * when there is something to do: every unit of a module calls. */
	if (m && !m->stays)
		m->stays = mv_module_stays(a_record(&d));
	if (m ? m->stays : lost && mv_module_stays(a_record(&d))) {
		mv_unlock();
		return 0;
	}
	if (m ? m->touched || mv_committed_any() : lost)
		err = mv_module_unloading(&d);
	if (m) {
		mv_mem_forget();    /* the module's memory may be gone soon */
		*p = m->next;
		if (modules_end == &m->next)
			modules_end = p;
		module_free(m);
	}
	mv_unlock();
	return err;
}

/* Whether the records of a registered module lie in spans: a module
 * whose destructor tells the runtime it goes.  The caller holds the
 * lock. */
int mv_registered_in(const struct mv_span *spans, size_t n)
{
	for (struct module *m = modules; m; m = m->next)
		if (mv_in_spans(spans, n, a_record(&m->d)))
			return 1;
	return 0;
}

/* Whether mv_mem_refresh() ran during this API call. */
static int mem_fresh;

/* Sites are read lazily (mv_check_sites), perhaps long after the last
 * merge: what is mapped is learnt again once per API call that reads
 * any, since a module without records may have gone meanwhile. */
void mv_mem_fresh(void)
{
	if (!mem_fresh)
		mv_mem_refresh();
	mem_fresh = 1;
}

/* Sites are relinked even after a failed merge: the tables moved. */
int mv_sync(void)
{
	mem_fresh = 0;
	if (!dirty)
		return 0;
	mv_mem_fresh();
	for (struct module *m = modules; m; m = m->next) {
		if (m->merged)
			continue;
		if (mv_reserve(&m->d)) {
			mv_link();
			return mv_error(-ENOMEM, "out of memory building the tables; nothing was written");
		}
		m->touched = 1;
		if (mv_merge(&m->d)) {
			mv_link();
			return mv_error(-ENOMEM, "out of memory building the tables; nothing was written");
		}
		m->merged = 1;
	}
	mv_link();
	mv_check_region_sites();
	dirty = 0;
	return 0;
}

MV_API int multiverse_init(void)
{
	int err;

	mv_lock();
	err = mv_sync();
	mv_unlock();
	return err;
}
