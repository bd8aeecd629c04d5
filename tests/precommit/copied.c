/* SPDX-License-Identifier: MIT */
/* A multiversed function on lib.c's switch: multiverse-precommit must
 * refuse the program, whose copy of the switch gets its value only when
 * it is loaded (tests/precommit/check.sh). */
#include <multiverse.h>
#include <stdio.h>

extern MULTIVERSE int lib_mode;

MULTIVERSE int by_lib(void)
{
	return lib_mode ? 1 : 2;
}

int main(void)
{
	printf("%d\n", by_lib());
	return 0;
}
