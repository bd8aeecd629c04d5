/* SPDX-License-Identifier: MIT */
/* The empty loop: the same timed loops with nothing in them.  Its ticks
 * (loop, fences and rdtsc) are subtracted from every candidate. */
#include "measure.h"

#define K empty
DEFINE_WARM(loop, )
DEFINE_COLD(loop, )
