/* SPDX-License-Identifier: MIT */
/* A shared object with the runtime linked in (tests/precommit/check.sh):
 * linked as it comes, its constructor reaches the registration through
 * a dynamic relocation, and multiverse-precommit refuses it; with
 * -Wl,-Bsymbolic-functions it is precommitted, and uselib.c checks it. */
#include <multiverse.h>

MULTIVERSE static int lib_level = 1;

__attribute__((visibility("hidden"), noinline)) MULTIVERSE int lib_fn(int x)
{
	return lib_level ? x + 1 : x - 1;
}

int lib_call(int x) { return lib_fn(x) * 2; }
void lib_set(int v) { lib_level = v; }
int lib_committed(void) { return multiverse_is_committed(lib_fn) == 1; }
