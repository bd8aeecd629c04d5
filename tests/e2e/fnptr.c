/* SPDX-License-Identifier: MIT */
/* Function-pointer switches: commit turns the recorded indirect calls and
 * tail calls into direct calls to the pointer's value at commit time;
 * revert restores the indirect calls. */
#include "check.h"

static int add1(int x) { return x + 1; }
static int add2(int x) { return x + 2; }

__attribute__((multiverse)) int (*op)(int);
__attribute__((multiverse)) void (*notify)(void);

static int notified;
static void note(void) { notified++; }

__attribute__((noinline)) int call_op(int x) { return op(x) * 10; }
__attribute__((noinline)) int tail_op(int x) { return op(x); }
__attribute__((noinline)) void call_notify(void) { notify(); __asm__ volatile(""); }

int main(void)
{
	op = add1;
	notify = note;
	CHECK_EQ(call_op(1), 20);
	CHECK_EQ(tail_op(1), 2);

	CHECK_EQ(multiverse_commit_fn(&op), 1);
	CHECK_EQ(multiverse_is_committed(&op), 1);
	const struct mv_info_var *vi = multiverse_info_var(&op);
	CHECK(vi && vi->is_fnptr && vi->n_sites >= 2);

	/* Direct now: a new pointer value is ignored until the next commit. */
	op = add2;
	CHECK_EQ(call_op(1), 20);
	CHECK_EQ(tail_op(1), 2);
	CHECK_EQ(multiverse_commit_refs(&op), 1);
	CHECK_EQ(call_op(1), 30);
	CHECK_EQ(tail_op(1), 3);

	/* Revert: indirect again, follows the pointer. */
	CHECK_EQ(multiverse_revert_fn(&op), 1);
	CHECK_EQ(multiverse_is_committed(&op), 0);
	op = add1;
	CHECK_EQ(call_op(1), 20);

	/* The global commit covers pointer switches too. */
	CHECK(multiverse_commit() >= 2);
	op = add2;
	notify = NULL;
	CHECK_EQ(tail_op(1), 2);
	call_notify();
	CHECK_EQ(notified, 1);
	CHECK(multiverse_revert() >= 2);
	notify = note;
	call_notify();
	CHECK_EQ(notified, 2);
	CHECK_DONE();
}
