/* SPDX-License-Identifier: MIT */
/* A function that writes a member switch, or lets the address of its
 * object go elsewhere, keeps reading it at run time: committed, it still
 * sees its own write.  The members sit inside array elements, so the
 * compiler reaches them through constant address expressions, shared by
 * every function that names them; the plugin must see the write behind
 * such an expression as this function's.  The plugin warns of each
 * (compile-fail/member-writes.c); a reader of the same member beside
 * them is specialized. */
#include "check.h"

struct inner { MULTIVERSE int level; };
struct config { int pad; MULTIVERSE int mode; struct inner inner; };
struct config cfgs[2];
int *volatile escaped;

/* stores the whole inner struct: a write of the member through a
 * constant expression of its element */
MULTIVERSE int copy_in(struct inner i)
{
	cfgs[1].inner = i;
	return cfgs[1].inner.level == 3 ? 30 : 40;
}

MULTIVERSE int set_mode(int m)
{
	cfgs[1].mode = m;
	return cfgs[1].mode == 1 ? 10 : 20;
}

/* the member's address goes to another function */
MULTIVERSE int leak(void)
{
	escaped = &cfgs[1].mode;
	*escaped = 7;
	return cfgs[1].mode == 1 ? 10 : 20;
}

MULTIVERSE int reader(void) { return cfgs[1].mode == 1 ? 10 : 20; }

int main(void)
{
	cfgs[1].inner.level = 3;
	cfgs[1].mode = 1;
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(reader), 1);

	CHECK_EQ(copy_in((struct inner){ 5 }), 40);
	CHECK_EQ(cfgs[1].inner.level, 5);
	CHECK_EQ(copy_in((struct inner){ 3 }), 30);

	CHECK_EQ(set_mode(2), 20);
	CHECK_EQ(reader(), 10);          /* its variant: mode was 1 */
	CHECK_EQ(set_mode(1), 10);

	CHECK_EQ(leak(), 20);
	CHECK_EQ(cfgs[1].mode, 7);
	cfgs[1].mode = 1;
	CHECK(multiverse_commit() >= 0);
	CHECK_EQ(leak(), 20);

	CHECK(multiverse_revert() >= 0);
	return check_failures != 0;
}
