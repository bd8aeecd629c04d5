/* SPDX-License-Identifier: MIT */
// A probe (a function-pointer switch compared with NULL) that the
// function writes, or whose address it takes, is not specialized there,
// in both compilers' words; one only called, or compared and copied into
// a local variable, is not a probe: no warning.
// expect-warning: 'install' writes multiverse switch 'trace'; the switch is not specialized in this function
// expect-warning: 'escape' takes the address of multiverse switch 'trace'; the switch is not specialized in this function
// expect-warning: 'reset' writes multiverse switch 'ops.hook'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'install' writes switch 'trace'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'escape' takes the address of switch 'trace'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'reset' writes switch 'ops.hook'; the switch is not specialized in this function
// expect-nothing-else
#include <stddef.h>

__attribute__((multiverse)) void (*trace)(int);
struct ops {
	__attribute__((multiverse)) void (*hook)(int);
};
struct ops ops;
void keep(void (**p)(int));
static void quiet(int x) { (void)x; }

__attribute__((multiverse)) void install(int x)
{
	if (!trace)
		trace = quiet;
	trace(x);
}

__attribute__((multiverse)) void escape(int x)
{
	if (trace != NULL)
		keep(&trace);
	(void)x;
}

__attribute__((multiverse)) void reset(int x)
{
	if (ops.hook)
		ops.hook(x);
	ops.hook = NULL;
}

/* not probes here: no warning */
__attribute__((multiverse)) void calls(int x) { trace(x); trace = quiet; }
__attribute__((multiverse)) void copies(int x)
{
	void (*fp)(int) = trace;
	if (fp)
		fp(x);
}

/* a probe, read only: specialized, no warning */
__attribute__((multiverse)) void probe(int x) { if (trace) trace(x); }
// expect-note: @15 switch 'trace' declared here
// expect-note: @17 switch member 'hook' declared here
// expect-clang-note: @15 switch 'trace' declared here
// expect-clang-note: @17 switch member 'hook' declared here
