/* SPDX-License-Identifier: MIT */
#ifndef CALLEE_LATER_H
#define CALLEE_LATER_H

extern __attribute__((multiverse)) int exe_mode;
__attribute__((multiverse)) int exe_fn(int x);
__attribute__((multiverse)) int lib_own(int x);
int lib_call(int x);
int lib_call_twice(int x);

#endif
