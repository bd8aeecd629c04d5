/* SPDX-License-Identifier: MIT */
/* Built as plugin.so and dlopen'ed by main.c: the function main.c's
 * probe is set to. */
long plugin_seen;

void plugin_trace(long x)
{
	plugin_seen += x;
}

/* makes the plugin a module with records of its own */
__attribute__((multiverse)) long plugin_twice(long x) { return 2 * x; }
