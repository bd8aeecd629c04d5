/* SPDX-License-Identifier: MIT */
/*
 * Kernel modules and init memory: what the loader and the boot code tell
 * the runtime.
 *
 * The module loader finds a module's descriptor sections as it finds its
 * jump table (kernel/module/main.c, find_module_sections; the fields are
 * struct module's mv_*).  When the module is COMING, its text is in place
 * and read-only, and nothing runs it yet: it is registered, and bound at
 * once if the kernel is committed (runtime/module.c).  When it is GOING,
 * after its exit function and before its memory is freed (also when its
 * init failed), everything outside it that reaches into it is restored
 * and its records are dropped; this holds for a module without records
 * too, whose functions a function-pointer switch may have been bound to.
 * When it is LIVE, its init memory is about to be freed: the functions
 * and call sites there are dropped.  vmlinux's init memory goes the same
 * way, from kernel_init() right before free_initmem().
 *
 * Between a module's exit function and GOING, sites bound into it still
 * reach it: a module that binds code outside itself to its functions
 * reverts that in its exit function, as it would reset a function
 * pointer it had set.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <asm/sections.h>

#include "internal.h"
#include "linux-kernel.h"

/* kernel/module/main.c finds the sections with these record sizes. */
_Static_assert(sizeof(struct mv_desc_var) == 32 && sizeof(struct mv_desc_fn) == 40 &&
	       sizeof(struct mv_desc_site) == 24, "the module loader's record sizes");

static struct mv_module records_of(const struct module *mod)
{
	return (struct mv_module){
		mod->mv_vars, mod->mv_vars + mod->num_mv_vars,
		mod->mv_fns, mod->mv_fns + mod->num_mv_fns,
		mod->mv_sites, mod->mv_sites + mod->num_mv_sites,
	};
}

static bool has_records(const struct module *mod)
{
	return mod->num_mv_vars || mod->num_mv_fns || mod->num_mv_sites;
}

/* Forgets what lies in [lo, hi): code about to be freed.  Whatever the
 * tables hold goes, even if merging what was registered since failed. */
static void forget_code(const void *lo, const void *hi)
{
	struct mv_span span = { (uintptr_t)lo, (uintptr_t)hi };

	if (lo == hi)
		return;
	mv_lock();
	mv_sync();
	mv_forget(NULL, &span, 1);
	mv_link();
	mv_unlock();
}

/* A module without records is going: only sites bound into it from
 * outside, by a function-pointer switch, may reach it. */
static int going_without_records(const struct module *mod)
{
	struct mv_span spans[2];
	size_t n = mv_module_spans(mod->core_layout.base, spans, 2);
	int err = 0;

	mv_lock();
	if (mv_sync() >= 0 && mv_committed_any())
		err = mv_spans_unloading(NULL, spans, n);
	mv_unlock();
	return err;
}

/* Whether the module has records of this runtime's descriptor version
 * and machine; when it is COMING, a message says why not. */
static bool readable(const struct module *mod, unsigned long state)
{
	const char *who = state == MODULE_STATE_COMING ? mod->name : NULL;
	int err;

	if (!has_records(mod))
		return false;
	mv_lock();      /* the message buffer is the runtime's */
	err = mv_kernel_check_versions(mod->mv_versions, mod->num_mv_versions, who);
	mv_unlock();
	return !err;
}

static int module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;
	struct mv_module m;
	int err = 0;

	/* a module whose records are not this runtime's is not registered:
	 * only sites bound into it from outside may reach it */
	if (!readable(mod, state)) {
		if (state == MODULE_STATE_GOING && going_without_records(mod))
			pr_warn("multiverse: module %s: %s\n", mod->name, multiverse_last_error());
		return NOTIFY_DONE;
	}
	m = records_of(mod);
	switch (state) {
	case MODULE_STATE_COMING:
		err = __multiverse_register_module(MV_DESCRIPTOR_VERSION, MV_ARCH_MACHINE,
						   m.var, m.var_end, m.fn, m.fn_end,
						   m.site, m.site_end);
		break;
	case MODULE_STATE_LIVE:
		forget_code(mod->init_layout.base,
			    (char *)mod->init_layout.base + mod->init_layout.size);
		break;
	case MODULE_STATE_GOING:
		err = __multiverse_unregister_module(MV_DESCRIPTOR_VERSION, MV_ARCH_MACHINE,
						     m.var, m.var_end, m.fn, m.fn_end,
						     m.site, m.site_end);
		break;
	}
	/* A module whose records could not be registered keeps running its
	 * generics; loading it does not fail for that. */
	if (err)
		pr_warn("multiverse: module %s: %s\n", mod->name, multiverse_last_error());
	return NOTIFY_OK;
}

static struct notifier_block module_nb = {
	.notifier_call = module_event,
};

static int __init mv_kernel_modules_init(void)
{
	return register_module_notifier(&module_nb);
}
early_initcall(mv_kernel_modules_init);

void multiverse_free_init_mem(void)
{
	forget_code(__init_begin, __init_end);
}
