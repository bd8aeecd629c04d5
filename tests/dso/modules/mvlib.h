/* SPDX-License-Identifier: MIT */
/* The shared library's interface: a switch and multiversed functions that
 * other modules use across the library boundary. */
#ifndef MVLIB_H
#define MVLIB_H

__attribute__((multiverse)) extern int lib_mode;
__attribute__((multiverse)) int lib_compute(int x);
int lib_call(int x);
int lib_call_hook(int x);
__attribute__((multiverse)) extern int (*lib_public_hook)(int);
int lib_call_public_hook(int x);
void lib_public_hook_to_twice(void);
void lib_set_hook(int (*fn)(int));
int lib_changed_sites(void *callee);

/* What plugin_site_target() (plugin.c) returns for a site that holds no
 * call: a copy of the variant (runtime/region.c). */
#define PLUGIN_SITE_INLINED ((void *)1)

#endif
