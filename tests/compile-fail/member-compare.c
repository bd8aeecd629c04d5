/* SPDX-License-Identifier: MIT */
// Comparing with the static object's address takes nothing: the function
// reads cfg.mode as a switch, and other objects' through the pointer
// without being told, having chosen to (README "Member switches").  Only a
// function that reads the member through pointers alone is told.
// expect-warning: 'pointer_only' reads multiverse switch member 'mode' of 'struct config' through a pointer
// expect-clang-warning: multiverse: 'pointer_only' reads switch member 'mode' of 'struct config' through a pointer
// expect-nothing-else
struct config { __attribute__((multiverse)) int mode; int other; };
struct config cfg, cfgs[2];

__attribute__((multiverse)) int static_or(struct config *p)
{
	return p == &cfg ? cfg.mode : p->mode;
}

__attribute__((multiverse)) int element_or(struct config *p)
{
	if (&cfgs[1] != p)
		return p->mode;
	return cfgs[1].mode;
}

__attribute__((multiverse)) int array_or(struct config *p)
{
	return p == cfgs ? cfgs[0].mode : p->mode;
}

__attribute__((multiverse)) int pointer_only(struct config *p) { return p->mode; }
// expect-note: @9 switch member 'mode' declared here
// expect-clang-note: @9 switch member 'mode' declared here
