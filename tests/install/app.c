/* SPDX-License-Identifier: MIT */
/*
 * Built against an installed Multiverse by a build system (CMake,
 * pkg-config): the plugin must have compiled mode_cost() into variants
 * and the runtime must bind them.
 */
#include <stdio.h>

#include <multiverse.h>

MULTIVERSE int mode;

MULTIVERSE int mode_cost(int x)
{
	return mode ? x * 3 : x + 1;
}

int main(void)
{
	mode = 1;
	if (multiverse_commit() < 0 || multiverse_is_committed(mode_cost) != 1 ||
	    mode_cost(5) != 15) {
		printf("app: not multiversed: commit bound %d, mode_cost(5) = %d, %s\n",
		       multiverse_is_committed(mode_cost), mode_cost(5), multiverse_last_error());
		return 1;
	}
	mode = 0;                 /* bound: no effect before the next commit */
	if (mode_cost(5) != 15 || multiverse_commit() < 0 || mode_cost(5) != 6) {
		printf("app: the committed variant did not follow the switch\n");
		return 1;
	}
	printf("app: multiverse %s\n", multiverse_version());
	return 0;
}
