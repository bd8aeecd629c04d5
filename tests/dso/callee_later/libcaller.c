/* SPDX-License-Identifier: MIT */
/* Built as libcaller.so: it calls exe_fn, a multiversed function of the
 * executable that links it.  Its constructor runs, and its module
 * registers, before the executable's, so when the tables are first
 * built its sites' callee is not in them yet. */
#include "callee_later.h"

__attribute__((noinline)) int lib_call(int x)
{
	return exe_fn(x) + lib_own(x) + 1000;
}

__attribute__((multiverse)) int lib_own(int x)
{
	return exe_mode ? 2 * x : 3 * x;
}

__attribute__((noinline)) int lib_call_twice(int x)
{
	return exe_fn(x) + exe_fn(x + 1);
}
