/* SPDX-License-Identifier: MIT */
/*
 * A shared object with the runtime linked in, as a C library built with
 * it (case-studies/musl: libc.so): its destructor runs at every exit,
 * and its memory goes only with the runtime's.
 */
#include "platform.h"

int holder_stays(const void *p)
{
	return mv_module_stays(p);
}

static int local_fn(void)
{
	return 1;
}

/* From inside: a program built without PIE would see the address of
 * its own PLT entry for a function of ours. */
const void *holder_code(void)
{
	return (const void *)local_fn;
}
