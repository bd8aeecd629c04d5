/* SPDX-License-Identifier: MIT */
/* A shared library main.c links: its function-pointer switch is
 * committed to a function of the dlopen'ed plugin, which lies within
 * reach of its call site, so the site becomes a direct call into the
 * plugin that unloading must restore.  The switch is static: an
 * interposable one would be called through the GOT, which stays
 * indirect.  main.c never names hook_default, so that a non-PIE
 * executable gives it no canonical address in its PLT, out of reach. */
int hook_default(int x) { return -x; }
__attribute__((multiverse)) static int (*hookp)(int) = hook_default;
__attribute__((noipa)) int call_hookp(int x) { return hookp(x); }
void lib_set_hook(int (*fn)(int)) { hookp = fn ? fn : hook_default; }
void *lib_hook_switch(void) { return &hookp; }
