/* SPDX-License-Identifier: MIT */
/*
 * Linux user space: which loaded object code belongs to, for
 * multiverse_redirect() (redirect.c), which sends calls to a function
 * that may live in a shared object loaded later, and for unregistering
 * (registry.c), which has nothing to do when the program ends.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>

#include "internal.h"
#include "linux-user.h"

/* Weak: a program that never loads a module (say, a static one) does not
 * link the dynamic loader's calls for us, and has nothing to pin. */
#pragma weak dladdr
#pragma weak dlopen
#pragma weak dlclose

struct code_query {
	uintptr_t p;
	int executable;         /* p lies in a PF_X segment */
	int first;              /* ... of the first object: the program */
	int index;
	const char *name;       /* ... of the object with this path */
};

static int find_code(struct dl_phdr_info *info, size_t size, void *data)
{
	struct code_query *q = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && q->p >= lo && q->p - lo < ph->p_memsz) {
			q->executable = !!(ph->p_flags & PF_X);
			q->first = q->index == 0;
			q->name = info->dlpi_name;
			return 1;
		}
	}
	q->index++;
	return 0;
}

int mv_is_code(const void *p)
{
	struct code_query q = { (uintptr_t)p, 0, 0, 0, 0 };

	dl_iterate_phdr(find_code, &q);
	return q.executable;
}

/* The program's load bias, from its program headers in the auxiliary
 * vector: PT_PHDR says where they were meant to be; without it (a static
 * executable, not position-independent) the bias is 0, if the headers
 * then lie in a segment.  -1 if neither holds. */
static intptr_t program_bias(const ElfW(Phdr) *ph, size_t n)
{
	uintptr_t at = (uintptr_t)ph;

	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			return (intptr_t)(at - ph[i].p_vaddr);
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && at - ph[i].p_vaddr < ph[i].p_memsz)
			return 0;
	return -1;
}

/* Whether inside lies in the program's segments.  From the auxiliary
 * vector, not dl_iterate_phdr(), which a static C library makes dear:
 * this runs in every process's exit. */
static int is_program(const void *inside)
{
	static const ElfW(Phdr) *ph;    /* the same for the process's life */
	static size_t n;
	static intptr_t bias;
	struct code_query q = { (uintptr_t)inside, 0, 0, 0, 0 };

	if (!ph && (ph = (const void *)getauxval(AT_PHDR))) {
		n = getauxval(AT_PHNUM);
		bias = program_bias(ph, n);
	}
	if (!ph || bias < 0) {
		dl_iterate_phdr(find_code, &q);
		return q.first;
	}
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD &&
		    (uintptr_t)inside - (uintptr_t)bias - ph[i].p_vaddr < ph[i].p_memsz)
			return 1;
	return 0;
}

/* The first and last bytes of the module the runtime is linked into, as
 * the static linker defines them in every module (GNU ld, lld); hidden,
 * so this module's own.  Weak: a linker that does not define them. */
extern const char __ehdr_start[] __attribute__((weak, visibility("hidden")));
extern const char _end[] __attribute__((weak, visibility("hidden")));

/* The program, or the module the runtime is linked into: libc.so, for a
 * C library built with it, whose destructor runs at every exit.  Where
 * the runtime is libmultiverse.so, no module with records is that one.
 * A record lies in its module's image, which no other module overlaps:
 * the runtime's own is told from the bounds above, without walking the
 * loaded objects at every exit. */
int mv_module_stays(const void *inside)
{
	struct mv_span spans[MV_SPANS_MAX];

	if (__ehdr_start && _end)
		return ((const char *)inside >= __ehdr_start && (const char *)inside < _end) ||
		       is_program(inside);
	return is_program(inside) ||
	       mv_in_spans(spans, mv_module_spans((const void *)&mv_lock, spans, MV_SPANS_MAX),
			   inside);
}

/* The runtime as a shared object (libmultiverse.so) is a module of its
 * own; linked into the program, a shared object or the C library, it is
 * part of theirs, whose other code is not the runtime's. */
int mv_in_runtime_module(const void *p)
{
	struct code_query self = { (uintptr_t)&mv_lock, 0, 0, 0, 0 };
	struct mv_span spans[MV_SPANS_MAX];
	const char *base;
	size_t n;

	dl_iterate_phdr(find_code, &self);
	base = self.name ? strrchr(self.name, '/') : 0;
	base = base ? base + 1 : self.name;
	if (self.first || !base || strncmp(base, "libmultiverse", 13))
		return 0;
	n = mv_module_spans((const void *)&mv_lock, spans, MV_SPANS_MAX);
	return mv_in_spans(spans, n, p);
}

/*
 * A shared object without records of ours does not tell the runtime when
 * it goes (module.c), so one that calls are redirected into is kept
 * loaded for good: dlopen() with RTLD_NOLOAD finds it without loading
 * anything, and RTLD_NODELETE makes every later dlclose() leave it
 * mapped.  The program itself never goes.
 */
int mv_module_pin(const void *p)
{
	struct code_query q = { (uintptr_t)p, 0, 0, 0, 0 };
	Dl_info info;
	void *h;

	dl_iterate_phdr(find_code, &q);
	if (q.first || !dlopen || !dladdr || !dlclose)
		return 0;
	if (!dladdr(p, &info) || !info.dli_fname)
		return -ENOENT;
	h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
	if (!h)
		return -ENOENT;
	dlclose(h);
	return 0;
}
