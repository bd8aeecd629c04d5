/* SPDX-License-Identifier: MIT */
/* Call sites of every binding in a shared object: to a static function,
 * a hidden one, one another module may interpose, and through a
 * function-pointer switch another module may interpose. */
#include <multiverse.h>

__attribute__((multiverse)) int lib_mode;

static __attribute__((multiverse, noinline)) int local_f(int x) { return lib_mode ? x + 1 : x; }
__attribute__((visibility("hidden"), multiverse, noinline)) int hidden_f(int x)
{
	return lib_mode ? x * 2 : x;
}
__attribute__((multiverse, noinline)) int public_f(int x) { return lib_mode ? x - 1 : x; }

static int twice(int x) { return 2 * x; }
__attribute__((multiverse)) int (*lib_hook)(int) = twice;

int lib_all(int x)
{
	return local_f(x) + hidden_f(x) + public_f(x) + lib_hook(x);
}
