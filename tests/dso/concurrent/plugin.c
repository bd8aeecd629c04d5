/* SPDX-License-Identifier: MIT */
/* Built as plugin.so and dlopen'ed and dlclose'd over and over by main.c
 * while its other threads commit: a switch and a multiversed function of
 * the plugin's own, and a call site into it. */
__attribute__((multiverse)) int plug_mode = 1;

__attribute__((multiverse)) int plug_fn(int x)
{
	return plug_mode ? x * 2 : x * 3;
}

__attribute__((noipa)) int plug_call(int x)
{
	return plug_fn(x) + 1;
}
