/* SPDX-License-Identifier: MIT */
/* Retpolines (GCC: inline thunks; Clang: LVI hardening, which must not
 * jump through memory either) with the switch reached through the GOT:
 * the stub loads it in two steps, a form the runtime follows. */
// mvflags: -fPIC
// mvflags-gcc: -mindirect-branch=thunk-inline
// mvflags-clang: -mlvi-cfi
#include "fnptr_bound.h"
