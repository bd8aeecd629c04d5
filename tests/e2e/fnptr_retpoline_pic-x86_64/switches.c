/* SPDX-License-Identifier: MIT */
/* The switches of main.c, defined in another unit. */
#define FNPTR_BOUND_SWITCHES
#include "fnptr_bound.h"
