/* SPDX-License-Identifier: MIT */
/* Calls through function-pointer switches under build flags that keep a
 * call through memory from being one commit can rewrite (the including
 * test's mvflags): each such call is sent to the switch's stub, and a
 * commit still binds every call, direct and tail, to the pointer's value
 * at commit, a global switch's and a member's, until the next commit;
 * revert makes them follow the pointer again.  The switches are another
 * unit's (switches.c, which defines FNPTR_BOUND_SWITCHES), so that code
 * built with -fPIC reaches them through the GOT. */
#include "check.h"

int add1(int x);
struct hooks {
	long pad;
	__attribute__((multiverse)) int (*on)(int);
};

#ifdef FNPTR_BOUND_SWITCHES
__attribute__((multiverse)) int (*op)(int) = add1;
struct hooks hooks = { 0, add1 };
int add1(int x) { return x + 1; }
#else
extern __attribute__((multiverse)) int (*op)(int);
extern struct hooks hooks;

static int add2(int x) { return x + 2; }
static int add3(int x) { return x + 3; }

__attribute__((noinline)) int call_op(int x) { return op(x) * 10; }
__attribute__((noinline)) int tail_op(int x) { return op(x); }
__attribute__((noinline)) int call_on(int x) { return hooks.on(x) * 10; }
__attribute__((noinline)) int tail_on(int x) { return hooks.on(x); }

int main(void)
{
	CHECK_EQ(call_op(1), 20);
	CHECK_EQ(tail_op(1), 2);
	CHECK_EQ(call_on(1), 20);

	op = add2;
	hooks.on = add2;
	CHECK_EQ(multiverse_commit(), 2);
	/* bound: writes after the commit change nothing */
	op = add3;
	hooks.on = add3;
	CHECK_EQ(call_op(1), 30);
	CHECK_EQ(tail_op(1), 3);
	CHECK_EQ(call_on(1), 30);
	CHECK_EQ(tail_on(1), 3);
	const struct mv_info_var *vi = multiverse_info_var(&op);
	CHECK(vi && vi->is_bound && vi->n_sites >= 1);

	/* the next commit binds the new values */
	CHECK_EQ(multiverse_commit(), 2);
	op = add1;
	hooks.on = add1;
	CHECK_EQ(call_op(1), 40);
	CHECK_EQ(tail_on(1), 4);

	/* revert: every call reads the pointer again */
	CHECK_EQ(multiverse_revert(), 2);
	CHECK_EQ(call_op(1), 20);
	CHECK_EQ(tail_op(1), 2);
	op = add2;
	hooks.on = add2;
	CHECK_EQ(call_op(1), 30);
	CHECK_EQ(call_on(1), 30);
	CHECK_EQ(tail_on(1), 3);
	CHECK_DONE();
}
#endif
