/* SPDX-License-Identifier: MIT */
/*
 * The runtime's version (multiverse_version()) is the one the sources were
 * compiled against (__MULTIVERSE_VERSION__) and the one tests/run read from
 * common/multiverse-version.h (WANT).
 */
#include <stdio.h>
#include <string.h>

#include <multiverse.h>

int main(void)
{
	char compiled[32];

	snprintf(compiled, sizeof compiled, "%d.%d.%d", __MULTIVERSE_VERSION__ / 10000,
		 __MULTIVERSE_VERSION__ / 100 % 100, __MULTIVERSE_VERSION__ % 100);
	if (strcmp(multiverse_version(), WANT) || strcmp(compiled, WANT)) {
		printf("version: the runtime says %s, __MULTIVERSE_VERSION__ %s, the header file %s\n",
		       multiverse_version(), compiled, WANT);
		return 1;
	}
	return 0;
}
