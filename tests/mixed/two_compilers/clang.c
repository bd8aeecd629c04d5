/* Built by multiverse-clang: a multiversed function on the switch that
 * gcc.c defines, and call sites of gcc.c's function. */
#include "shared.h"

__attribute__((multiverse)) int from_clang(int x) { return mode ? x * 5 : x + 5; }

__attribute__((noinline)) int call_from_gcc(int x) { return from_gcc(x) + 2000; }
