/* SPDX-License-Identifier: MIT */
/* Struct and union members as switches: every form a global switch has
 * (bool, values, enum, tracked), nested members, constant-index array
 * elements, a function-scope static object and a union, each bound by
 * commit and by multiverse_commit_refs(&object.member).  A write to a
 * member after commit changes nothing until the next commit: the member
 * really was made a constant in the selected variant. */
#include "check.h"
#include <stdbool.h>

enum mode { SLOW, FAST = 5, FASTEST = 9 };

struct inner {
	MULTIVERSE enum mode mode;
	int pad;
};

struct config {
	int other;
	MULTIVERSE bool smp;
	MULTIVERSE_TRACKED int debug;
	MULTIVERSE_VALUES(2, 4) unsigned char scale;
	struct inner in;
};

union word {
	struct { MULTIVERSE short lo; short hi; } half;
	int whole;
};

struct config cfg, cfgs[3];
union word w;

MULTIVERSE int compute(int x)
{
	int r = x;
	if (cfg.smp)
		r += 100;
	r *= cfg.scale;
	if (cfg.in.mode == FAST)
		r = -r;
	else if (cfg.in.mode == FASTEST)
		r += 3;
	return r;
}

MULTIVERSE int traced(int x) { return cfg.debug ? x + 1000 : x; }

MULTIVERSE int element(void) { return cfgs[1].smp ? 11 : 22; }

MULTIVERSE int halfword(void) { return w.half.lo == 1 ? 1 : 2; }

/* Reached through a pointer: not specialized, so always current. */
MULTIVERSE int through(struct config *p) { return p->smp ? 1 : 0; }

/* The static object or another one: comparing addresses lets nothing
 * write the member, so cfg.smp and cfgs[1].smp are still specialized. */
MULTIVERSE int static_or(struct config *p)
{
	if (p == &cfg)
		return cfg.smp ? 1 : 0;
	if (&cfgs[1] == p)
		return cfgs[1].smp ? 11 : 10;
	return p->smp ? 21 : 20;
}

static int *local_flag;
MULTIVERSE int local_static(void)
{
	static struct { MULTIVERSE int on; } state;
	/* an initializer, not a statement: the function itself does not take
	 * the address, which would keep it from specializing state.on
	 * (volatile, or Clang reads the initializer in its place) */
	static int *volatile address = &state.on;
	local_flag = address;
	return state.on ? 7 : 8;
}

int main(void)
{
	/* the names and flags of the member switches */
	const struct mv_info_var *vi = multiverse_info_var(&cfg.in.mode);
	CHECK(vi && !strcmp(vi->name, "cfg.in.mode") && vi->width == 4);
	vi = multiverse_info_var(&cfgs[2].scale);
	CHECK(vi && !strcmp(vi->name, "cfgs[2].scale") && vi->width == 1 &&
	      !vi->is_signed);
	vi = multiverse_info_var(&cfg.debug);
	CHECK(vi && vi->is_tracked && !vi->is_bound && vi->is_signed);
	CHECK(multiverse_info_var(&cfg.other) == NULL);
	CHECK(multiverse_info_var(&w.half.hi) == NULL);

	cfg.smp = true;
	cfg.scale = 2;
	cfg.in.mode = FAST;
	CHECK_EQ(compute(1), -202);
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(compute), 1);
	cfg.smp = false;                /* bound: nothing changes yet */
	cfg.in.mode = FASTEST;
	CHECK_EQ(compute(1), -202);
	int (*fn)(int) = OPAQUE(&compute);
	CHECK_EQ(fn(1), -202);

	/* commit_refs on one member rebinds the functions that read it */
	CHECK_EQ(multiverse_commit_refs(&cfg.smp), 2);
	CHECK_EQ(compute(1), 5);
	cfg.scale = 4;
	CHECK_EQ(compute(1), 5);
	CHECK_EQ(multiverse_commit_refs(&cfgs[0].smp), 0);  /* read by none */
	CHECK_EQ(multiverse_commit_refs(&cfg.scale), 1);
	CHECK_EQ(compute(1), 7);

	/* outside the domain: the generic, which reads the members */
	cfg.scale = 3;
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(compute), 0);
	CHECK_EQ(compute(1), 6);

	/* a tracked member is unbound until bound */
	cfg.debug = 1;
	CHECK_EQ(multiverse_is_committed(traced), 0);
	CHECK_EQ(traced(1), 1001);
	CHECK_EQ(multiverse_bind(&cfg.debug, 1), 1);
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(traced), 1);
	cfg.debug = 0;
	CHECK_EQ(traced(1), 1001);

	/* array elements: each element's member is a switch of its own */
	cfgs[1].smp = true;
	cfgs[0].smp = false;
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(element), 1);
	cfgs[1].smp = false;
	CHECK_EQ(element(), 11);
	CHECK_EQ(multiverse_commit_refs(&cfgs[1].smp), 2);
	CHECK_EQ(element(), 22);

	/* a union member, written through the other member */
	w.whole = 0;
	w.half.lo = 1;
	CHECK(multiverse_commit_refs(&w.half.lo) == 1);
	w.whole = 0;
	CHECK_EQ(halfword(), 1);
	CHECK_EQ(multiverse_commit_refs(&w.half.lo), 1);
	CHECK_EQ(halfword(), 2);

	/* through a pointer: read at run time, also after commit */
	cfg.smp = true;
	CHECK(multiverse_commit() >= 0);
	CHECK_EQ(through(&cfg), 1);
	cfg.smp = false;
	CHECK_EQ(through(&cfg), 0);

	/* addresses compared, not taken: specialized */
	struct config heap = { .smp = true };
	cfg.smp = true, cfgs[1].smp = true;
	CHECK(multiverse_commit() >= 1);
	CHECK_EQ(multiverse_is_committed(static_or), 1);
	cfg.smp = false, cfgs[1].smp = false;
	CHECK_EQ(static_or(&cfg), 1);
	CHECK_EQ(static_or(&cfgs[1]), 11);
	CHECK_EQ(static_or(OPAQUE(&heap)), 21);
	heap.smp = false;
	CHECK_EQ(static_or(OPAQUE(&heap)), 20);
	CHECK(multiverse_commit_refs(&cfg.smp) >= 1);
	CHECK_EQ(static_or(&cfg), 0);

	/* a function-scope static object */
	CHECK_EQ(local_static(), 8);
	*local_flag = 1;
	CHECK_EQ(multiverse_commit_refs(local_flag), 1);
	*local_flag = 0;
	CHECK_EQ(local_static(), 7);
	vi = multiverse_info_var(local_flag);
	CHECK(vi && !strcmp(vi->name, "state.on"));

	/* revert restores the generics, which read the members again */
	CHECK(multiverse_revert() >= 1);
	CHECK_EQ(local_static(), 8);
	CHECK_EQ(element(), 22);
	CHECK_DONE();
}
