/* SPDX-License-Identifier: MIT */
/* An executable with sites calling its own functions and the library's
 * (lib.c); check.sh reads the relocations of both files. */
#include <multiverse.h>
#include "check.h"

extern __attribute__((multiverse)) int lib_mode;
__attribute__((multiverse)) int public_f(int x);
int lib_all(int x);

__attribute__((multiverse)) int mode;
static __attribute__((multiverse, noinline)) int own(int x) { return mode ? x + 10 : x; }

int main(void)
{
	CHECK_EQ(lib_all(3), 3 + 3 + 3 + 6);
	CHECK_EQ(own(1) + public_f(1), 2);
	lib_mode = 1, mode = 1;
	CHECK(multiverse_commit() > 0);
	CHECK_EQ(lib_all(3), 4 + 6 + 2 + 6);
	CHECK_EQ(own(1) + public_f(1), 11);
	CHECK(multiverse_revert() > 0);
	lib_mode = 0, mode = 0;
	CHECK_EQ(lib_all(3), 15);
	CHECK_DONE();
}
