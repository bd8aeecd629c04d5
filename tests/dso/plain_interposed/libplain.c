/* SPDX-License-Identifier: MIT */
/* A plain multiversed function and a padded function-pointer switch that
 * points to it; the executable interposes its own definition. */
#include <multiverse.h>

volatile int flag = 5;
__attribute__((multiverse)) void native_off(void) { flag = 0; }
__attribute__((multiverse)) void native_on(void) { flag = 1; }
__attribute__((multiverse("inline", 24))) void (*pv)(void) = native_off;
__attribute__((noinline)) void call_pv(void) { pv(); __asm__ volatile(""); }
void point_pv(int on) { pv = on ? native_on : native_off; }
