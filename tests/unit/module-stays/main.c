/* SPDX-License-Identifier: MIT */
/*
 * mv_module_stays() (platform.h) through holder.c's libholder.so: the
 * program and the module the runtime is linked into stay; a library
 * loaded beside them may go.  (What a module's destructor does with
 * the answer is registry.c's; musl's start-up count shows it.)
 */
#include <dlfcn.h>
#include <stdio.h>

int holder_stays(const void *p);
const void *holder_code(void);

static int failed;

#define CHECK(cond) do { if (!(cond)) { \
	printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); failed = 1; } } while (0)

static int in_program(void)
{
	return 2;
}

int main(void)
{
	void *libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	void *cos_fn = libm ? dlsym(libm, "cos") : 0;

	CHECK(holder_stays((const void *)in_program) == 1);
	CHECK(holder_stays(holder_code()) == 1);
	CHECK(cos_fn);
	CHECK(!cos_fn || holder_stays(cos_fn) == 0);
	if (!failed)
		printf("ok: the program and the runtime's module stay, libm may go\n");
	return failed;
}
