/* SPDX-License-Identifier: MIT */
/*
 * The Linux kernel as a platform of the runtime: its lock, its messages,
 * reading memory, the bounds of vmlinux and of modules.  Nothing here
 * knows the architecture; writing text is text-<arch>.c's.
 *
 * vmlinux's descriptors lie between the bounds its linker script defines
 * (include/asm-generic/vmlinux.lds.h, MULTIVERSE_DATA).  They are
 * registered by the first API call, whenever that comes: an early
 * initcall may commit before the second CPU starts.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/uaccess.h>
#include <asm/sections.h>

#include "internal.h"
#include "linux-kernel.h"

extern const struct mv_desc_var __start___multiverse_var[], __stop___multiverse_var[];
extern const struct mv_desc_fn __start___multiverse_fn[], __stop___multiverse_fn[];
extern const struct mv_desc_site __start___multiverse_site[], __stop___multiverse_site[];
extern const u32 __start___multiverse_version[], __stop___multiverse_version[];

static DEFINE_MUTEX(lock);
static bool vmlinux_registered;

/* No constructor passes a unit's descriptor version and machine here:
 * each unit of the kernel's says them in __multiverse_version. */
int mv_kernel_check_versions(const u32 *pairs, unsigned int n, const char *who)
{
	if (!n)
		return !who ? -ENOEXEC : mv_error(-ENOEXEC, "%s has descriptors but no descriptor version (the section __multiverse_version of a plugin given the kernel argument): its code stays generic",
						  who);
	for (unsigned int i = 0; i < n; i++)
		if (pairs[2 * i] < MV_DESCRIPTOR_VERSION_OLDEST ||
		    pairs[2 * i] > MV_DESCRIPTOR_VERSION || pairs[2 * i + 1] != MV_ARCH_MACHINE)
			return !who ? -ENOEXEC : mv_error(-ENOEXEC, "%s was compiled for descriptor version %u and ELF machine %u; this runtime reads versions %u to %u for %u (%s): its code stays generic",
					who, pairs[2 * i], pairs[2 * i + 1], MV_DESCRIPTOR_VERSION_OLDEST,
					MV_DESCRIPTOR_VERSION, MV_ARCH_MACHINE, MV_ARCH_NAME);
	return 0;
}

void mv_lock(void)
{
	mutex_lock(&lock);
	if (!vmlinux_registered) {
		struct mv_module vmlinux = {
			__start___multiverse_var, __stop___multiverse_var,
			__start___multiverse_fn, __stop___multiverse_fn,
			__start___multiverse_site, __stop___multiverse_site,
		};

		unsigned int units = (__stop___multiverse_version -
				      __start___multiverse_version) / 2;

		if ((vmlinux.var < vmlinux.var_end || vmlinux.fn < vmlinux.fn_end ||
		     vmlinux.site < vmlinux.site_end) &&
		    mv_kernel_check_versions(__start___multiverse_version, units, "vmlinux"))
			vmlinux_registered = true;      /* its records are not ours */
		else    /* again at the next call if there was no memory for it */
			vmlinux_registered = mv_register_locked(&vmlinux) != -ENOMEM;
	}
}

void mv_unlock(void)
{
	mutex_unlock(&lock);
}

void mv_print(const char *msg)
{
	pr_warn("multiverse: %s\n", msg);
}

int mv_mem_read(void *dst, const void *src, size_t len)
{
	return copy_from_kernel_nofault(dst, src, len) ? -EFAULT : 0;
}

/* Every address the descriptors name is in vmlinux or a live module. */
void mv_mem_refresh(void)
{
}

void mv_mem_forget(void)
{
}

static size_t add_span(struct mv_span *spans, size_t n, size_t max,
		       const void *base, unsigned long size)
{
	if (n < max && size)
		spans[n++] = (struct mv_span){ (uintptr_t)base, (uintptr_t)base + size };
	return n;
}

/* A module's memory is its core and its init layouts (freed after its
 * init); vmlinux is never unloaded, and its spans are its init sections
 * (mv_kernel_free_init_mem). */
size_t mv_module_spans(const void *inside, struct mv_span *spans, size_t max)
{
	struct module *mod;
	size_t n = 0;

	preempt_disable();
	mod = __module_address((unsigned long)inside);
	if (mod) {
		n = add_span(spans, n, max, mod->core_layout.base, mod->core_layout.size);
		n = add_span(spans, n, max, mod->init_layout.base, mod->init_layout.size);
	}
	preempt_enable();
	return n;
}

/* Modules unregister only when they are unloaded (modules.c). */
int mv_module_stays(const void *inside)
{
	(void)inside;
	return 0;
}

/* Kernel text and modules are within a direct call's reach of each other
 * on x86-64; AArch64 modules beyond it are reached through the module
 * loader's PLTs, not through sites this runtime binds. */
const void *mv_gate(uintptr_t near, const void *target)
{
	(void)near, (void)target;
	return NULL;
}
