/* SPDX-License-Identifier: MIT */
/* Built as plugin.so with -fPIC and dlopen'ed by main.c after a commit:
 * a multiversed function that reads the library's switch, calls into the
 * library, and a function main hands to the library's pointer switch. */
#include "mvlib.h"

__attribute__((multiverse)) int plugin_fn(int x)
{
	return lib_mode ? x - 1 : x - 2;
}

int plugin_calls_lib(int x)
{
	return lib_compute(x) + plugin_fn(x);
}

int plugin_hook(int x)
{
	return x * 7;
}
