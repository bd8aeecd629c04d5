/* SPDX-License-Identifier: MIT */
/* Built as plugin.so and dlopen'ed by main.c: a new version of main.c's
 * handle(), in a module with records of its own, whose unloading the
 * runtime sees. */
int v2_calls;

int handle_v2(int x)
{
	v2_calls++;
	return 1000 + x;
}

/* makes the plugin a module with records of its own */
__attribute__((multiverse)) int plugin_twice(int x) { return 2 * x; }
