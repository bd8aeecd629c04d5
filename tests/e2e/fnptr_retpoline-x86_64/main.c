/* SPDX-License-Identifier: MIT */
/* With retpolines no indirect call may stay a plain one: a call through
 * a switch calls its stub directly, which commit rewrites, and the stub
 * jumps through a retpoline of its own.  A PIE reaches the switch
 * through a copy relocation (GCC) or the GOT (Clang). */
// mvflags-gcc: -mindirect-branch=thunk
// mvflags-clang: -mretpoline
#include "fnptr_bound.h"
