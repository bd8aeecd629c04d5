/* SPDX-License-Identifier: MIT */
/* The large code model calls a symbol through a register (movabs; call
 * *reg), a form commit cannot rewrite: the call goes to the switch's
 * stub, whose own jmp *sw(%rip) is recorded as the switch's site (a
 * PIE built by Clang reaches the switch through the GOT: below). */
// mvflags: -mcmodel=large
#include "fnptr_bound.h"
