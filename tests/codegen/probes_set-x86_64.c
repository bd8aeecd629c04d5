/* SPDX-License-Identifier: MIT */
/*
 * Probes, as in probes.c: the variant for "not NULL" must be the #ifdef
 * build that always traces: the call, without the test.  Only GCC on
 * x86-64 calls through the switch in memory, as the #ifdef build does;
 * Clang, and GCC on AArch64, call the switch's stub (clang/fnptr.cpp,
 * gcc/stubs.cc), a direct call that commit binds to the hook.
 * not-with-clang: calls the switch's stub
 *
 * codegen: account.multiverse.1 account -DTRACE=1
 * codegen: lookup.multiverse.1 lookup -DTRACE=1
 */
#include "probes.c"
