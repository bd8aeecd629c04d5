/* SPDX-License-Identifier: MIT */
/* GCC's -mindirect-branch-register: indirect jumps through registers
 * only, so the stub loads the switch (through the GOT) into r11 and
 * jumps through it. */
// not-with-clang: GCC's -mindirect-branch-register
// mvflags: -fPIC -mindirect-branch-register
#include "fnptr_bound.h"
