/* SPDX-License-Identifier: MIT */
/* The attribute on the declarations in a header is all the units need. */
#ifndef CONFIG_H
#define CONFIG_H

__attribute__((multiverse)) extern int config_fast;
__attribute__((multiverse)) extern int (*config_hook)(int);
__attribute__((multiverse)) int compute(int x);
int caller(int x);
int tail_caller(int x);
int hook_caller(int x);

#endif
