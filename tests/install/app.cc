// SPDX-License-Identifier: MIT
// app.c in C++, built against an installed Multiverse by CMake with
// g++ or clang++: a switch in a namespace and a member function.
#include <cstdio>

#include <multiverse.h>

namespace cfg {
MULTIVERSE int mode;
}

struct Meter {
	int base;
	MULTIVERSE int cost(int x) const { return cfg::mode ? x * base : x + base; }
};

int main()
{
	Meter m{3};
	cfg::mode = 1;
	if (multiverse_commit() < 0 || multiverse_is_committed(&Meter::cost) != 1 || m.cost(5) != 15) {
		std::printf("app: not multiversed: commit bound %d, cost(5) = %d, %s\n",
			    multiverse_is_committed(&Meter::cost), m.cost(5), multiverse_last_error());
		return 1;
	}
	cfg::mode = 0;                  // bound: no effect before the next commit
	if (m.cost(5) != 15 || multiverse_commit() < 0 || m.cost(5) != 8) {
		std::printf("app: the committed variant did not follow the switch\n");
		return 1;
	}
	std::printf("app: multiverse C++ works\n");
	return 0;
}
