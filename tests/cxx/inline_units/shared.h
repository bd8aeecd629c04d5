// SPDX-License-Identifier: MIT
// Inline functions and a template that both units use: C++ emits each
// unit a copy in a COMDAT group and the linker keeps one, with its
// variants and descriptors.
#include <multiverse.h>

namespace cfg {
extern MULTIVERSE int level;
}

MULTIVERSE inline int shared_cost(int x) { return cfg::level ? x * cfg::level : x; }

// calls shared_cost: in its generic and in the variants for level 1 and 2
template <typename T> MULTIVERSE inline T shared_twice(T x)
{
	return cfg::level ? shared_cost(x) + x : x;
}

struct Meter {
	MULTIVERSE int read(int x) const { return cfg::level > 1 ? x - 1 : x; }
};

int other_unit(int x);
