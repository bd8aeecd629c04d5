/* SPDX-License-Identifier: MIT */
/* Built as libmvlib.so with -fPIC.  lib_compute is called from inside the
 * library (through its PLT, or its GOT with -fno-plt), from the
 * executable and from a dlopen'ed plugin.  lib_hook is a hidden
 * function-pointer switch, called through memory; lib_public_hook one
 * that PIC code reaches through the GOT. */
#include <stdint.h>
#include <string.h>
#include "mvlib.h"
#include "../../../common/descriptor.h"

int lib_mode;

int lib_compute(int x)
{
	return lib_mode ? x * 10 : x + 1;
}

__attribute__((noinline)) int lib_call(int x)
{
	return lib_compute(x) + 1000;
}

__attribute__((visibility("hidden"), multiverse)) int (*lib_hook)(int);

void lib_set_hook(int (*fn)(int))
{
	lib_hook = fn;
}

__attribute__((noinline)) int lib_call_hook(int x)
{
	return lib_hook(x) + 1;
}

/* A public pointer switch, which the library reaches through its GOT:
 * its calls go through a stub, which commit bypasses. */
__attribute__((multiverse)) int (*lib_public_hook)(int);

__attribute__((noinline)) int lib_call_public_hook(int x)
{
	return lib_public_hook(x) + 1;
}

/* A target within rel32 reach of the library's sites. */
static int twice(int x)
{
	return 2 * x;
}

void lib_public_hook_to_twice(void)
{
	lib_public_hook = twice;
}

/* The library's own sites, and their bytes before anything was patched,
 * so the test can tell which sites commit rewrote. */
extern const struct mv_desc_site __start___multiverse_site[]
	__attribute__((visibility("hidden")));
extern const struct mv_desc_site __stop___multiverse_site[]
	__attribute__((visibility("hidden")));
static uint8_t original[64][6];

__attribute__((constructor)) static void save_sites(void)
{
	for (const struct mv_desc_site *s = __start___multiverse_site;
	     s < __stop___multiverse_site && s - __start___multiverse_site < 64; s++)
		memcpy(original[s - __start___multiverse_site], mv_desc_site_addr(s), 6);
}

int lib_changed_sites(void *callee)
{
	int n = 0;

	for (const struct mv_desc_site *s = __start___multiverse_site;
	     s < __stop___multiverse_site && s - __start___multiverse_site < 64; s++)
		if (mv_desc_site_callee(s) == callee &&
		    memcmp(original[s - __start___multiverse_site], mv_desc_site_addr(s), 5))
			n++;
	return n;
}
