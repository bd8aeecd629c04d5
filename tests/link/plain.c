/* SPDX-License-Identifier: MIT */
/* No multiversed code and no call of the API: the wrapper's link must add
 * neither the runtime nor a run path (tests/run, "link/"). */
#include <stdio.h>

int main(void)
{
	puts("plain");
	return 0;
}
