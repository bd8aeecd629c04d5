/* SPDX-License-Identifier: MIT */
/* A multiversed function that writes and takes the address of globals
 * whose type this unit never completes: an array of unknown bound and a
 * struct defined in objects.c.  Clang's plugin measured every such
 * object, to see whether a write overlaps a member switch, and crashed
 * on the struct. */
#include "check.h"

struct opaque;
extern int table[];
extern struct opaque obj;
struct opaque *obj_address(void);

__attribute__((multiverse)) int mode;

static struct opaque *last;

__attribute__((multiverse)) int touch(int x)
{
	int *p = table;               /* the decay: an address taken */
	if (mode)
		table[1] = x;         /* a write */
	p[2] = x + 1;
	last = &obj;                  /* an address taken */
	return mode ? x * 2 : x;
}

int main(void)
{
	mode = 1;
	CHECK(multiverse_commit() >= 0);
	CHECK(multiverse_is_committed(touch) == 1);
	CHECK(touch(5) == 10 && table[1] == 5 && table[2] == 6 && last == obj_address());
	mode = 0;
	CHECK(multiverse_commit() >= 0);
	CHECK(touch(7) == 7 && table[1] == 5 && table[2] == 8);
	return 0;
}
