/* SPDX-License-Identifier: MIT */
/* Counts the calls of a program's own module constructor and destructor
 * to the runtime: the program stands between them and the runtime's
 * register and unregister functions (its definitions come first), and
 * forwards each call.  The module must be registered once at start-up
 * and unregistered once at exit, however many units emit records: they
 * share one COMDAT group (docs/descriptor-format.md, "Registration"). */
#ifndef REGISTRATIONS_H
#define REGISTRATIONS_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* The calls each way: one, unless every unit has its own constructor and
 * destructor, which GCC's units fall back to under a code model or
 * return thunks the shared copy does not suit. */
#ifndef REGISTRATIONS
#define REGISTRATIONS 1
#endif

typedef int (*registration)(uint32_t, uint32_t, const void *, const void *,
			    const void *, const void *, const void *, const void *);
static int registered, unregistered;

static int forward(const char *name, int *count, uint32_t version, uint32_t machine,
		   const void *v0, const void *v1, const void *f0, const void *f1,
		   const void *s0, const void *s1)
{
	registration next = (registration)dlsym(RTLD_NEXT, name);

	++*count;
	return next ? next(version, machine, v0, v1, f0, f1, s0, s1) : -1;
}

int __multiverse_register_module(uint32_t version, uint32_t machine,
				 const void *v0, const void *v1, const void *f0,
				 const void *f1, const void *s0, const void *s1)
{
	return forward("__multiverse_register_module", &registered, version, machine,
		       v0, v1, f0, f1, s0, s1);
}

int __multiverse_unregister_module(uint32_t version, uint32_t machine,
				   const void *v0, const void *v1, const void *f0,
				   const void *f1, const void *s0, const void *s1)
{
	return forward("__multiverse_unregister_module", &unregistered, version, machine,
		       v0, v1, f0, f1, s0, s1);
}

/* After the module's destructor (priority 101): destructors of lower
 * priority run later. */
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
#endif
__attribute__((destructor(100))) static void unregistered_once(void)
{
	if (unregistered != REGISTRATIONS) {
		fprintf(stderr, "the module was unregistered %d times, not %d\n",
			unregistered, REGISTRATIONS);
		_exit(1);
	}
}

#endif
