/* SPDX-License-Identifier: MIT */
/*
 * Guard evaluation and variant selection, without patching anything.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CHECK(c) do { if (!(c)) { \
	printf("select: line %d: %s\n", __LINE__, #c); exit(1); } } while (0)

/* one guard: lo <= *v <= hi */
#define GUARD(v, lo, hi) { .var = (v), .low = (lo), .high = (hi) }

static int32_t a;
static uint8_t b;
static int64_t t;
static uint64_t u;
static uint32_t w;
static int16_t h;
static int unknown;

static struct mv_var vars[] = {
	{ .addr = &a, .name = "a", .width = 4, .flags = MV_VAR_SIGNED, .bound = 1 },
	{ .addr = &b, .name = "b", .width = 1, .flags = 0, .bound = 1 },
	{ .addr = &t, .name = "t", .width = 8, .flags = MV_VAR_SIGNED | MV_VAR_TRACKED },
	{ .addr = &u, .name = "u", .width = 8, .flags = 0, .bound = 1 },
	{ .addr = &w, .name = "w", .width = 4, .flags = 0, .bound = 1 },
	{ .addr = &h, .name = "h", .width = 2, .flags = MV_VAR_SIGNED, .bound = 1 },
};

static const struct mv_var *find(const void *addr)
{
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
		if (vars[i].addr == addr)
			return &vars[i];
	return 0;
}

static void test_read(void)
{
	int8_t s8 = -1;
	int16_t s16 = -2;
	int32_t s32 = -3;
	int64_t s64 = -4, big = 0x123456789ll;

	CHECK(mv_switch_read(&s8, 1, 1) == -1);
	CHECK(mv_switch_read(&s8, 1, 0) == 255);
	CHECK(mv_switch_read(&s16, 2, 1) == -2);
	CHECK(mv_switch_read(&s16, 2, 0) == 65534);
	CHECK(mv_switch_read(&s32, 4, 1) == -3);
	CHECK(mv_switch_read(&s32, 4, 0) == 4294967293ll);
	CHECK(mv_switch_read(&s64, 8, 1) == -4);
	CHECK((uint64_t)mv_switch_read(&s64, 8, 0) == (uint64_t)-4);
	CHECK(mv_switch_read(&big, 8, 0) == 0x123456789ll);
}

static void test_guard(void)
{
	const struct mv_var *va = find(&a), *vt = find(&t), *vu = find(&u);
	struct mv_desc_guard neg = GUARD(&a, -10, -1), pos = GUARD(&a, 0, 10);
	struct mv_desc_guard high = GUARD(&u, (int64_t)0xfffffffffffffff0ull, -1);
	struct mv_desc_guard wide = GUARD(&u, 1ll << 32, 1ll << 40);
	struct mv_desc_guard tg = GUARD(&t, -5, 5);

	a = -5;
	CHECK(mv_guard_holds(&neg, va));
	CHECK(!mv_guard_holds(&pos, va));
	a = 10;
	CHECK(mv_guard_holds(&pos, va));
	a = 11;
	CHECK(!mv_guard_holds(&pos, va));

	/* Unsigned: the bounds are compared as uint64_t. */
	u = UINT64_MAX;
	CHECK(mv_guard_holds(&high, vu));
	CHECK(!mv_guard_holds(&wide, vu));
	u = 1ull << 33;
	CHECK(!mv_guard_holds(&high, vu));
	CHECK(mv_guard_holds(&wide, vu));
	u = 1ull << 41;
	CHECK(!mv_guard_holds(&wide, vu));

	/* Unbound or unknown switches satisfy no guard. */
	t = 0;
	CHECK(!mv_guard_holds(&tg, vt));
	vars[2].bound = 1;
	CHECK(mv_guard_holds(&tg, vt));
	vars[2].bound = 0;
	CHECK(!mv_guard_holds(&tg, 0));
}

/* A bound is the value of the switch's type, zero-extended for an unsigned
 * switch and sign-extended for a signed one: the form mv_switch_read()
 * gives and the plugin emits.  No other form of the same bits matches. */
static void test_canonical(void)
{
	const struct mv_var *vw = find(&w), *vh = find(&h);
	struct mv_desc_guard top = GUARD(&w, 0x80000001ll, 0x80000001ll);
	struct mv_desc_guard sext = { .var = &w, .low = (int64_t)0xffffffff80000001ull,
				      .high = (int64_t)0xffffffff80000001ull };
	struct mv_desc_guard span = GUARD(&w, 0x7fffffffll, 0x80000000ll);
	struct mv_desc_guard max = GUARD(&w, 0xffffffffll, 0xffffffffll);
	struct mv_desc_guard hmin = GUARD(&h, -32768, -32768);
	struct mv_desc_guard hzext = GUARD(&h, 0x8000, 0x8000);

	w = 0x80000001u;
	CHECK(mv_switch_read(&w, 4, 0) == 0x80000001ll);
	CHECK(mv_guard_holds(&top, vw));
	CHECK(!mv_guard_holds(&sext, vw));
	CHECK(!mv_guard_holds(&span, vw));
	w = 0x80000000u;
	CHECK(mv_guard_holds(&span, vw));      /* no wrap at the sign bit */
	w = 0x7fffffffu;
	CHECK(mv_guard_holds(&span, vw));
	w = UINT32_MAX;
	CHECK(mv_guard_holds(&max, vw));
	CHECK(!mv_guard_holds(&span, vw));
	h = INT16_MIN;
	CHECK(mv_guard_holds(&hmin, vh));
	CHECK(!mv_guard_holds(&hzext, vh));
}

static void test_select(void)
{
	static const struct mv_desc_guard a0[] = { GUARD(&a, 0, 0) };
	static const struct mv_desc_guard a1[] = { GUARD(&a, 1, 1) };
	static const struct mv_desc_guard a1b1[] = { GUARD(&a, 1, 1), GUARD(&b, 1, 1) };
	static const struct mv_desc_guard a1b1t[] = { GUARD(&t, 1, 1), GUARD(&a, 1, 1), GUARD(&b, 1, 1) };
	static const struct mv_desc_guard unk[] = { GUARD(&unknown, 0, 0) };
	static const struct mv_desc_variant v[] = {
		{ .body = (void *)0x10, .guards = a0, .n_guards = 1 },
		{ .body = (void *)0x11, .guards = a1, .n_guards = 1 },
		{ .body = (void *)0x12, .guards = a1b1, .n_guards = 2 },
		{ .body = (void *)0x13, .guards = a1b1, .n_guards = 2 },
		{ .body = (void *)0x14, .guards = a1b1t, .n_guards = 3 },
		{ .body = (void *)0x15, .guards = unk, .n_guards = 1 },
	};
	struct mv_desc_fn fn = { .name = "f", .variants = v, .n_variants = 6 };

	a = 0, b = 0;
	CHECK(mv_select(v, 6, find) == &v[0]);
	a = 1;
	CHECK(mv_select(v, 6, find) == &v[1]);
	b = 1;
	CHECK(mv_select(v, 6, find) == &v[2]);     /* more guards win, first of equals */
	t = 1;
	CHECK(mv_select(v, 6, find) == &v[2]);     /* t is tracked and unbound */
	vars[2].bound = 1;
	CHECK(mv_select(v, 6, find) == &v[4]);
	t = 2;
	CHECK(mv_select(v, 6, find) == &v[2]);
	vars[2].bound = 0;
	a = 7;
	CHECK(mv_select(v, 6, find) == 0);         /* none: the generic runs */
	a = -1;
	CHECK(mv_select(v, 6, find) == 0);
	unknown = 0;
	CHECK(mv_select(v + 5, 1, find) == 0);     /* unregistered switch */
	CHECK(mv_select(v, 0, find) == 0);

	CHECK(mv_reads(&fn, &a) && mv_reads(&fn, &b) && mv_reads(&fn, &t));
	CHECK(mv_reads(&fn, &unknown) && !mv_reads(&fn, &u));
}

/* target less the address of the field that holds it (0: NULL) */
static int64_t distance(const void *field, const void *target)
{
	return target ? (int64_t)((uintptr_t)target - (uintptr_t)field) : 0;
}
#define DISTANCE(field, target) ((field) = distance(&(field), (target)))

/* The same selection with records that hold distances (descriptor
 * version 6), as the plugins write them, and absolute ones mixed. */
static void test_distances(void)
{
	static struct mv_desc_guard a1b1[2] = { { .low = 1, .high = 1 }, { .low = 1, .high = 1 } };
	static const struct mv_desc_guard a0[] = { GUARD(&a, 0, 0) };
	static struct mv_desc_variant v[3];
	static struct mv_desc_fn fn = { .n_variants = 3, .flags = MV_FN_RELATIVE };
	static const char name[] = "rel";
	static char body[3];

	DISTANCE(a1b1[0].var_offset, &a);
	DISTANCE(a1b1[1].var_offset, &b);
	DISTANCE(v[0].body_offset, &body[0]);
	DISTANCE(v[0].guards_offset, a1b1);
	v[0].n_guards = 2;
	v[0].flags = MV_VARIANT_RELATIVE | MV_VARIANT_VARS_RELATIVE;
	v[1] = (struct mv_desc_variant){ .body = &body[1], .guards = a0, .n_guards = 1 };
	DISTANCE(v[2].body_offset, &body[2]);
	DISTANCE(v[2].guards_offset, (void *)0);        /* no guards */
	DISTANCE(v[2].relocs_offset, (void *)0);
	v[2].flags = MV_VARIANT_RELATIVE;
	DISTANCE(fn.name_offset, name);
	DISTANCE(fn.variants_offset, v);
	DISTANCE(fn.generic_offset, &body[0]);          /* not read as one */
	DISTANCE(fn.entry_offset, &body[1]);

	CHECK(!strcmp(mv_desc_fn_name(&fn), "rel") && mv_desc_fn_variants(&fn) == v);
	CHECK(mv_desc_fn_generic(&fn) != body && mv_desc_fn_entry(&fn) == &body[1]);
	fn.flags |= MV_FN_GENERIC_RELATIVE;
	CHECK(mv_desc_fn_generic(&fn) == body);
	CHECK(mv_desc_variant_guards(&v[2]) == 0 && mv_desc_variant_relocs(&v[2]) == 0);
	CHECK(mv_desc_variant_body(&v[2]) == &body[2]);
	a = 1, b = 1;
	CHECK(mv_select(v, 2, find) == &v[0] && mv_desc_variant_body(&v[0]) == body);
	b = 0;
	CHECK(mv_select(v, 2, find) == 0);
	a = 0;
	CHECK(mv_select(v, 2, find) == &v[1]);
	CHECK(mv_reads(&fn, &a) && mv_reads(&fn, &b) && !mv_reads(&fn, &u));
	/* the third, guarded by nothing, holds always */
	CHECK(mv_select(v, 3, find) == &v[1] && mv_select(v + 2, 1, find) == &v[2]);
}

int main(void)
{
	test_read();
	test_guard();
	test_canonical();
	test_select();
	test_distances();
	return 0;
}
