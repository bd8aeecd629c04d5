// SPDX-License-Identifier: MIT
#include "shared.h"

int other_unit(int x)
{
	Meter m;
	return shared_cost(x) + shared_twice(x) + m.read(x);
}
