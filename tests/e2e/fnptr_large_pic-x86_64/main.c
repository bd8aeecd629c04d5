/* SPDX-License-Identifier: MIT */
/* The large code model with the switch reached through the GOT: the
 * stub starts with a recorded jmp rel32 to its next instruction, the GOT
 * form, which commit follows to the switch and then binds. */
// mvflags: -fPIC -mcmodel=large
#include "fnptr_bound.h"
