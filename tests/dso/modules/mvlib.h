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

#endif
