/* SPDX-License-Identifier: MIT */
/* Built as plugin_bare.so and dlopen'ed by main.c: a new version of
 * handle() in a module without records, which the runtime keeps loaded
 * once calls are redirected into it. */
int handle_v3(int x)
{
	return 3000 + x;
}
