/* SPDX-License-Identifier: MIT */
/* Unit 1: only defines the objects; it has no multiversed function, yet
 * describes every member switch they hold. */
#include "config.h"

struct sched sched = { POLICY_RR, { 16 }, 0 };
struct sched per_cpu[2];
