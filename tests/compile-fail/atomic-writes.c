/* SPDX-License-Identifier: MIT */
// An _Atomic switch is read by an atomic load, which is specialized; any
// other atomic operation on it writes it, in both compilers' words.
// expect-warning: 'store' writes multiverse switch 'level'; the switch is not specialized in this function
// expect-warning: 'add' writes multiverse switch 'level'; the switch is not specialized in this function
// expect-warning: 'swap' writes multiverse switch 'on'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'store' writes switch 'level'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'add' writes switch 'level'; the switch is not specialized in this function
// expect-clang-warning: multiverse: 'swap' writes switch 'on'; the switch is not specialized in this function
// expect-nothing-else
#include <stdatomic.h>

__attribute__((multiverse)) _Atomic int level;
__attribute__((multiverse)) _Atomic _Bool on;

__attribute__((multiverse)) int store(int x)
{
	if (atomic_load(&level) > 3)
		atomic_store_explicit(&level, x, memory_order_release);
	return x;
}
__attribute__((multiverse)) int add(int x) { return level ? atomic_fetch_add(&level, x) : 0; }
__attribute__((multiverse)) int swap(int x) { return on ? atomic_exchange(&on, 0) + x : x; }

/* reads only: specialized, no warning */
__attribute__((multiverse)) int read(int x)
{
	return atomic_load_explicit(&level, memory_order_acquire) + (on ? x : 0);
}
// expect-note: @13 switch 'level' declared here
// expect-note: @14 switch 'on' declared here
// expect-clang-note: @13 switch 'level' declared here
// expect-clang-note: @14 switch 'on' declared here
