/* SPDX-License-Identifier: MIT */
/* Loaded by main.c after it redirected handle(): this module's call
 * site of handle must be bound to the new function as it joins. */
__attribute__((multiverse)) int handle(int x);  /* its calls are sites */

__attribute__((noinline)) int plugin_call(int x)
{
	int r = handle(x);

	__asm__ volatile("" ::: "memory");      /* no tail call */
	return r;
}
