/* SPDX-License-Identifier: MIT */
/* Every unit that emits records also emits the module's constructor and
 * destructor, in one COMDAT group, of which the linker keeps one copy:
 * the runtime hears of the module once at start-up and once at exit,
 * not once per unit.  This program stands between its own calls and
 * the runtime's register and unregister functions to count them. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <unistd.h>
#include "check.h"
#include "shared.h"

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

__attribute__((noinline)) static int from_main(int x) { return twice(x); }

int main(void)
{
	CHECK_EQ(registered, 1);
	mode = 1;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(from_main(5), 10);
	CHECK_EQ(from_a(5), 110);
	CHECK_EQ(from_b(5), 210);
	const struct mv_info_fn *fi = multiverse_info_fn(twice);
	CHECK(fi && fi->n_sites >= 1);
	mode = 0;
	CHECK_EQ(from_b(5), 210);       /* committed: mode is not read */
	CHECK_EQ(multiverse_revert(), 1);
	CHECK_EQ(from_b(5), 211);
	CHECK_DONE();
}

/* After the module's destructor (priority 101): destructors of lower
 * priority run later. */
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
#endif
__attribute__((destructor(100))) static void after_unregistering(void)
{
	if (unregistered != 1) {
		fprintf(stderr, "the module was unregistered %d times, not once\n", unregistered);
		_exit(1);
	}
}
