/* SPDX-License-Identifier: MIT */
/* A program linked with a library built with the plugin's optional-runtime
 * argument (tests/run, "link/optional-runtime").  Built by the plain
 * compiler, with no runtime in the process, the library runs its generic
 * and reads the switch on every call.  Built by the wrapper, the library's
 * weak references found the runtime, so it registered: a commit binds its
 * switch and later writes change nothing until the next commit. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "check.h"

extern int lib_sw;
int lib_f(int x);

int main(void)
{
#ifdef __MULTIVERSE__
	const int runtime = 1;
#else
	const int runtime = 0;
#endif
	CHECK_EQ(dlopen("libmultiverse.so.0", RTLD_NOW | RTLD_NOLOAD) != NULL, runtime);
	lib_sw = 1;
	CHECK_EQ(lib_f(5), 5);
	CHECK_EQ(multiverse_commit(), runtime);
	lib_sw = 0;
	CHECK_EQ(lib_f(5), runtime ? 5 : -5);
	CHECK_EQ(multiverse_revert(), runtime);
	CHECK_EQ(lib_f(5), -5);
	CHECK_DONE();
}
