/* SPDX-License-Identifier: MIT */
/*
 * Module registration, and bringing the tables up to date with it.
 *
 * Registering only records a module's descriptor bounds: it runs in
 * constructors, before main and before anything else of ours.  The next
 * API call merges whatever was registered since the previous one
 * (mv_sync), which is how shared objects loaded later join in.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

struct module {
	struct module *next;
	struct mv_module d;
	int merged;
	int touched;          /* a merge was tried: records may be in the tables */
};

static struct module *modules, **modules_end = &modules;
static int dirty;             /* some module is not merged yet */
static int lost;              /* a module could not be registered */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void mv_lock(void)
{
	pthread_mutex_lock(&lock);
}

void mv_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

/*
 * fork() waits for an API call in progress: a child must not inherit the
 * lock held by a thread it does not have, nor a batch half written (its
 * copy of the text would keep the breakpoints).  vfork() and
 * posix_spawn() children share our memory and run no API calls.
 */
static void fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	lock = fresh;
	mv_trap_tables_forked();
}

__attribute__((constructor)) static void hook_fork(void)
{
	pthread_atfork(mv_lock, mv_unlock, fork_child);
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
 * same bounds.  A module registering after a whole-program commit (a
 * dlopen) is bound at once (module.c).  Before main, when nothing is
 * committed, registering only records the bounds.
 */
MV_API int __multiverse_register_module(uint32_t version, uint32_t machine,
					const struct mv_desc_var *var_start,
					const struct mv_desc_var *var_stop,
					const struct mv_desc_fn *fn_start,
					const struct mv_desc_fn *fn_stop,
					const struct mv_desc_site *site_start,
					const struct mv_desc_site *site_stop)
{
	struct module **p, *m;
	int err = 0;

	if (version != MV_DESCRIPTOR_VERSION)
		return mv_error(-ENOEXEC, "module with functions at %p has descriptor version %u, this runtime reads version %u",
				(const void *)fn_start, version, MV_DESCRIPTOR_VERSION);
	if (machine != MV_ARCH_MACHINE)
		return mv_error(-ENOEXEC, "module with functions at %p was compiled for ELF machine %u, this runtime is for %u (%s)",
				(const void *)fn_start, machine, MV_ARCH_MACHINE, MV_ARCH_NAME);
	mv_lock();
	p = find(var_start, fn_start, site_start);
	if (!*p) {
		m = calloc(1, sizeof *m);
		if (m) {
			m->d = (struct mv_module){ var_start, var_stop, fn_start, fn_stop,
						   site_start, site_stop };
			*modules_end = m;
			modules_end = &m->next;
			dirty = 1;
			err = mv_module_loaded(&m->d);
		} else {
			lost = 1;
			err = mv_error(-ENOMEM, "out of memory registering a module: "
				       "its code stays generic");
		}
	}
	mv_unlock();
	return err;
}

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

	if (version != MV_DESCRIPTOR_VERSION || machine != MV_ARCH_MACHINE)
		return -ENOEXEC;
	mv_lock();
	p = find(var_start, fn_start, site_start);
	m = *p;
	if (m ? m->touched || mv_committed_any() : lost)
		err = mv_module_unloading(&d);
	if (m) {
		mv_mem_refresh();   /* the module's memory may be gone soon */
		*p = m->next;
		if (modules_end == &m->next)
			modules_end = p;
		free(m);
	}
	mv_unlock();
	return err;
}

/* Sites are relinked even after a failed merge: the tables moved. */
int mv_sync(void)
{
	if (!dirty)
		return 0;
	mv_mem_refresh();
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
