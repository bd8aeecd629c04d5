/* SPDX-License-Identifier: MIT */
/* Unit 2: defines the multiversed function, which reads the switch of
 * unit 1. */
#include "config.h"

int compute(int x)
{
	return config_fast ? x << 1 : x * 3;
}
