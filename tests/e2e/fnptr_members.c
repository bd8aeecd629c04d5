/* SPDX-License-Identifier: MIT */
/* Function-pointer members as switches: calls and tail calls through
 * ops.hook, through a nested member and through constant-index array
 * elements become direct calls at commit, each switch on its own
 * (commit_refs(&object.member)), and indirect again at revert. */
#include "check.h"

static int add1(int x) { return x + 1; }
static int add2(int x) { return x + 2; }
static int neg(int x) { return -x; }

struct ops {
	long calls;
	MULTIVERSE int (*hook)(int);
	MULTIVERSE void (*notify)(void);
};

struct driver {
	int id;
	struct ops ops;
};

struct ops ops;
static struct driver drivers[2];

static int notified;
static void note(void) { notified++; }

__attribute__((noinline)) int call_hook(int x) { return ops.hook(x) * 10; }
__attribute__((noinline)) int tail_hook(int x) { return ops.hook(x); }
__attribute__((noinline)) void call_notify(void) { ops.notify(); __asm__ volatile(""); }
__attribute__((noinline)) int call_driver1(int x) { return drivers[1].ops.hook(x) * 10; }
__attribute__((noinline)) int call_through(struct ops *p, int x) { return p->hook(x) * 10; }

int main(void)
{
	ops.hook = add1;
	ops.notify = note;
	drivers[1].ops.hook = add2;
	CHECK_EQ(call_hook(1), 20);
	CHECK_EQ(tail_hook(1), 2);
	CHECK_EQ(call_driver1(1), 30);

	CHECK_EQ(multiverse_commit_refs(&ops.hook), 1);
	CHECK_EQ(multiverse_is_committed(&ops.hook), 1);
	CHECK_EQ(multiverse_is_committed(&drivers[1].ops.hook), 0);
	const struct mv_info_var *vi = multiverse_info_var(&ops.hook);
	CHECK(vi && vi->is_fnptr && vi->n_sites >= 2);
	CHECK(vi && !strcmp(vi->name, "ops.hook"));
	vi = multiverse_info_var(&drivers[1].ops.hook);
	CHECK(vi && vi->is_fnptr && !strcmp(vi->name, "drivers[1].ops.hook"));

	/* Direct now: a new value is ignored until the next commit, and
	 * the other switches still follow their pointers. */
	ops.hook = neg;
	drivers[1].ops.hook = add1;
	CHECK_EQ(call_hook(1), 20);
	CHECK_EQ(tail_hook(1), 2);
	CHECK_EQ(call_driver1(1), 20);
	CHECK_EQ(call_through(&ops, 1), -10);      /* not a switch read */
	CHECK_EQ(multiverse_commit_refs(&drivers[1].ops.hook), 1);
	drivers[1].ops.hook = neg;
	CHECK_EQ(call_driver1(1), 20);

	/* Revert: indirect again. */
	CHECK_EQ(multiverse_revert_refs(&ops.hook), 1);
	CHECK_EQ(call_hook(1), -10);
	CHECK_EQ(tail_hook(1), -1);
	CHECK_EQ(multiverse_revert_refs(&drivers[1].ops.hook), 1);
	CHECK_EQ(call_driver1(1), -10);

	/* The global commit covers them too. */
	CHECK(multiverse_commit() >= 3);
	ops.notify = NULL;
	call_notify();
	CHECK_EQ(notified, 1);
	CHECK(multiverse_revert() >= 3);
	ops.notify = note;
	call_notify();
	CHECK_EQ(notified, 2);
	CHECK_DONE();
}
