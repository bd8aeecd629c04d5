/* SPDX-License-Identifier: MIT */
/* A library's operations table, whose hooks are function-pointer switches. */
#include <multiverse.h>

struct ops {
	const char *name;
	MULTIVERSE int (*hook)(int);
	MULTIVERSE int (*filter)(int);
};

/* public: other modules reach it through the GOT */
extern struct ops lib_ops;

/* Sets *hook to one of the library's own functions.  Those are static:
 * the address of a public one is, in a non-PIE executable, its PLT entry
 * there, and a direct call from the library to the executable, gigabytes
 * away, would not fit, so such a site keeps calling through the switch
 * (docs/patching.md). */
enum target { ADD1, NEG, TWICE };
void lib_set(int (**hook)(int), enum target to);

int lib_call_hook(int x);
int lib_tail_filter(int x);
int lib_call_private(int x);
int (**lib_private_hook(void))(int);
