/* SPDX-License-Identifier: MIT */
/* Runs lib2.c's precommitted shared object: it starts committed, and
 * its own runtime commits it (tests/precommit/check.sh). */
#include <stdio.h>

int lib_call(int x);
void lib_set(int v);
int lib_committed(void);
int multiverse_commit(void);

int main(void)
{
	int ok = lib_committed() && lib_call(5) == 12;

	lib_set(0);
	ok = ok && lib_call(5) == 12;   /* waits for the next commit */
	ok = ok && multiverse_commit() >= 0 && lib_call(5) == 8;
	if (!ok)
		fprintf(stderr, "uselib: the precommitted library is not as expected\n");
	return !ok;
}
