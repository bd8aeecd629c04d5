/* SPDX-License-Identifier: MIT */
/* dlopen'ed by main.c: bound when it loads after a commit, and the
 * target main.c's function-pointer switch is committed to. */
__attribute__((multiverse)) int plug_mode = 1;

__attribute__((multiverse)) int plug_fn(int x)
{
	return plug_mode ? x * 2 : x * 3;
}

__attribute__((noipa)) int plug_call(int x)
{
	return plug_fn(x) + 1;
}

int plug_target(int x)
{
	return x + 7;
}
