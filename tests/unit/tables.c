/* SPDX-License-Identifier: MIT */
/*
 * Merging modules' descriptors into the run-time tables (runtime/tables.c)
 * against a model: after every merge the site index must hold each
 * (callee, site) pair merged so far exactly once, in (callee, address)
 * order, with the first merged descriptor, and mv_link() must give each
 * function and function-pointer switch exactly its own sites.  Records
 * built before a merge (a random third of the sites, each marked) must
 * move with their entries and keep their mark; no other may be built.
 * Forgetting a module (mv_forget) must drop exactly its sites and those
 * calling into it, by its spans and by its descriptors, and keep the
 * others' records.
 *
 * The modules are random but shaped as the runtime meets them: sites in
 * code order with a few callers moved ahead or listed twice, callees
 * defined in a module registered later, modules merged in any order and
 * merged twice (the records there must stay), small modules (the
 * general sort) and large ones (placement by callee), into empty tables
 * and beside others.  No code is read or written: the
 * functions are declarations, whose entries the runtime reports as
 * unreadable, and the rest are function-pointer switches.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CHECK(c) do { if (!(c)) { \
	printf("tables.c:%d: check failed: %s (%s, module %d)\n", __LINE__, #c, shape, module); \
	exit(1); } } while (0)

static const char *shape;
static int module;

static uint64_t seed = 0x243f6a8885a308d3ull;

static uint64_t rnd(uint64_t n)
{
	seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
	return seed % n;
}

/* Addresses: callees in one range, sites in another, never 0. */
#define CALLEE_BASE 0x10000000u
#define SITE_BASE   0x40000000u

#define MAX_CALLEES 512
#define MAX_SITES   6000
#define MAX_MODULES 4

struct module {
	struct mv_desc_var var[MAX_CALLEES];
	struct mv_desc_fn fn[MAX_CALLEES];
	struct mv_desc_site site[MAX_SITES];
	size_t n_vars, n_fns, n_sites;
};

static struct module mods[MAX_MODULES];

/* The model: every (callee, site) merged, with the first one's fields. */
struct pair { uintptr_t callee, site; uint32_t pad, flags; size_t arrived; };
static struct pair model[MAX_MODULES * 2 * MAX_SITES];
static size_t n_model, arrivals;
static size_t n_built;          /* records built, each marked MARK */
#define MARK 0x5a

static int by_key(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	return x->arrived < y->arrived ? -1 : x->arrived > y->arrived;
}

static void model_add(const struct module *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n_sites; i++)
		model[n_model++] = (struct pair){ (uintptr_t)m->site[i].callee,
			(uintptr_t)m->site[i].site, m->site[i].pad, m->site[i].flags, arrivals++ };
	qsort(model, n_model, sizeof *model, by_key);
	for (size_t i = 0; i < n_model; i++)
		if (!k || model[k - 1].callee != model[i].callee || model[k - 1].site != model[i].site)
			model[k++] = model[i];
	n_model = k;
}

/* A module of n_callees callees (vars, fns or both, at unique addresses)
 * and n_sites sites to callees of its own or of others[], in code
 * order; out_of_order of them moved to the front, dups listed twice. */
static void make_module(struct module *m, int id, size_t n_callees, int kinds,
			size_t n_sites, const struct module *others, size_t n_others,
			size_t out_of_order, size_t dups)
{
	const void *callee[MAX_CALLEES * (MAX_MODULES + 1)];
	size_t n = 0;

	memset(m, 0, sizeof *m);
	for (size_t i = 0; i < n_callees; i++) {
		void *addr = (void *)(uintptr_t)(CALLEE_BASE + 0x100000u * id + 16 * (n_callees - i));
		int fn = kinds == 2 ? (int)rnd(2) : kinds;

		if (fn)
			m->fn[m->n_fns++] = (struct mv_desc_fn){ .generic = addr, .name = "f" };
		else
			m->var[m->n_vars++] = (struct mv_desc_var){
				.addr = addr, .name = "fp", .width = sizeof(void *), .flags = MV_VAR_FNPTR };
		callee[n++] = addr;
	}
	for (size_t o = 0; o < n_others; o++) {
		for (size_t i = 0; i < others[o].n_fns; i++)
			callee[n++] = others[o].fn[i].generic;
		for (size_t i = 0; i < others[o].n_vars; i++)
			callee[n++] = others[o].var[i].addr;
	}
	for (size_t i = 0; i < n_sites; i++)
		m->site[i] = (struct mv_desc_site){
			.site = (void *)(uintptr_t)(SITE_BASE + 0x1000000u * id + 8 * i + rnd(3)),
			.callee = (void *)callee[rnd(n)], .pad = (uint32_t)rnd(3) * 4,
			.flags = (uint32_t)rnd(2) };
	/* a caller the linker put ahead: its sites come first */
	for (size_t i = 0; i < out_of_order && n_sites; i++) {
		struct mv_desc_site s = m->site[n_sites - 1 - i];

		memmove(&m->site[1], &m->site[0], (n_sites - 1 - i) * sizeof s);
		memmove(&m->site[0], &s, sizeof s);
		m->site[0].site = (void *)((uintptr_t)m->site[0].site + 0x800000u);
	}
	/* a site listed twice, with other fields: the first one counts */
	for (size_t i = 0; i < dups && n_sites < MAX_SITES; i++) {
		m->site[n_sites] = m->site[rnd(n_sites)];
		m->site[n_sites++].pad ^= 4;
	}
	m->n_sites = n_sites;
}

/* n sites listed twice, the second beside the first */
static void dups_beside(struct module *m, size_t n)
{
	for (size_t i = 0; i < n && m->n_sites < MAX_SITES; i++) {
		size_t at = rnd(m->n_sites);

		memmove(&m->site[at + 1], &m->site[at], (m->n_sites++ - at) * sizeof *m->site);
		m->site[at + 1].pad ^= 8;
	}
}

static void merge(const struct module *m)
{
	struct mv_module d = { m->var, m->var + m->n_vars, m->fn, m->fn + m->n_fns,
			       m->site, m->site + m->n_sites };

	for (size_t i = 0; i < mv.n_sites; i++)
		if (!mv_site_if_built(i) && !rnd(3)) {
			mv_site_build(i)->aim = MARK;
			n_built++;
		}
	CHECK(mv_merge(&d) == 0);
	mv_link();
	model_add(m);
}

/* A callee's run of sites: all of its sites in the model, and only its. */
static void check_run(const void *callee, size_t site0, size_t n_sites)
{
	size_t n = 0;

	for (size_t j = 0; j < n_model; j++)
		n += model[j].callee == (uintptr_t)callee;
	CHECK(n_sites == n);
	for (size_t j = site0; n && j < site0 + n_sites; j++)
		CHECK(mv_site_desc(j)->callee == callee);
}

/* The tables against the model. */
static void check(void)
{
	size_t built = 0;

	CHECK(mv.n_sites == n_model);
	for (size_t i = 0; i < mv.n_sites && i < n_model; i++) {
		const struct mv_desc_site *d = mv_site_desc(i);
		const struct mv_site *s = mv_site_if_built(i);

		CHECK((uintptr_t)d->callee == model[i].callee);
		CHECK((uintptr_t)d->site == model[i].site);
		CHECK(d->pad == model[i].pad);
		CHECK(d->flags == model[i].flags);
		if (!s)
			continue;
		built++;
		CHECK(s->aim == MARK);
		CHECK((uintptr_t)s->callee == model[i].callee);
		CHECK((uintptr_t)s->area.addr == model[i].site);
		CHECK(s->pad == model[i].pad);
		CHECK(s->in_probe_variant == (model[i].flags & MV_SITE_IN_PROBE_VARIANT));
		CHECK(s->area.state == MV_AREA_UNRESOLVED);
	}
	CHECK(built == n_built);
	for (size_t i = 0; i < mv.n_fns; i++)
		check_run(mv.fns[i].generic, mv.fns[i].site0, mv.fns[i].n_sites);
	for (size_t i = 0; i < mv.n_vars; i++)
		check_run(mv.vars[i].addr, mv.vars[i].site0, mv.vars[i].n_sites);
}

/* Merging a module again must keep the records there, which may hold
 * what patching wrote: every one is built and marked before. */
static void merge_again(const struct module *m)
{
	for (size_t i = 0; i < mv.n_sites; i++)
		if (!mv_site_if_built(i)) {
			mv_site_build(i)->aim = MARK;
			n_built++;
		}
	merge(m);
	check();
	CHECK(n_built == mv.n_sites);
}

/* Module id unloads: its callees' and sites' address ranges are its
 * spans; without the second, its sites go because their descriptors
 * are its. */
static void forget(int id, int site_span)
{
	const struct module *m = &mods[id];
	struct mv_module d = { m->var, m->var + m->n_vars, m->fn, m->fn + m->n_fns,
			       m->site, m->site + m->n_sites };
	struct mv_span spans[2] = {
		{ CALLEE_BASE + 0x100000u * id, CALLEE_BASE + 0x100000u * (id + 1) },
		{ SITE_BASE + 0x1000000u * id, SITE_BASE + 0x1000000u * (id + 1) },
	};
	size_t k = 0;

	for (size_t i = 0; i < mv.n_sites; i++)
		if (!mv_site_if_built(i) && !rnd(3)) {
			mv_site_build(i)->aim = MARK;
			n_built++;
		}
	for (size_t i = 0; i < n_model; i++) {
		int goes = (model[i].callee >= spans[0].lo && model[i].callee < spans[0].hi) ||
			   (model[i].site >= spans[1].lo && model[i].site < spans[1].hi);

		if (!goes)
			model[k++] = model[i];
		else if (mv_site_if_built(i))
			n_built--;
	}
	n_model = k;
	mv_forget(&d, spans, site_span ? 2 : 1);
	mv_link();
	check();
}

static void reset(const char *name)
{
	for (size_t i = 0; i < mv.n_vars; i++)
		if (mv.vars[i].owned_name)
			free((char *)mv.vars[i].name);
	free(mv.vars);
	free(mv.fns);
	free(mv.sites);
	free(mv.index);
	memset(&mv, 0, sizeof mv);
	n_model = arrivals = n_built = 0;
	module = 0;
	shape = name;
}

int main(void)
{
	/* every declared function's entry is reported unreadable, each
	 * time its module is merged: thousands of lines */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	for (int round = 0; round < 20; round++) {
		size_t big = 1024 + rnd(3000), small = rnd(1000);

		/* The first module's callees, or some of them, come with
		 * the second: placement must leave it to the general sort. */
		reset(round % 2 ? "callers first" : "some callees later");
		make_module(&mods[1], 1, 1 + rnd(40), 2, 0, 0, 0, 0, 0);
		make_module(&mods[0], 0, round % 2 ? 0 : 1 + rnd(8), 2, big, &mods[1], 1, rnd(5), rnd(3));
		module = 0, merge(&mods[0]), check();
		module = 1, merge(&mods[1]), check();

		/* Own callees, in code order: placed into empty tables. */
		reset("placed, in order");
		make_module(&mods[0], 0, 1 + rnd(64), 2, big, 0, 0, 0, 0);
		module = 0, merge(&mods[0]), check();
		module = 0, merge_again(&mods[0]);

		/* Sites listed twice, in code order otherwise. */
		reset("placed, listed twice");
		make_module(&mods[0], 0, 1 + rnd(64), 2, big, 0, 0, 0, 0);
		dups_beside(&mods[0], 1 + rnd(20));
		module = 0, merge(&mods[0]), check();

		/* Callers moved ahead and sites listed twice. */
		reset("placed, out of order");
		make_module(&mods[0], 0, 1 + rnd(64), 2, big, 0, 0, 1 + rnd(20), 1 + rnd(20));
		module = 0, merge(&mods[0]), check();

		/* Modules beside each other, large and small, calling into
		 * each other's callees. */
		reset("several modules");
		make_module(&mods[0], 0, 1 + rnd(64), 0, big, 0, 0, rnd(4), rnd(4));
		make_module(&mods[1], 1, 1 + rnd(64), 1, small, &mods[0], 1, rnd(4), rnd(4));
		make_module(&mods[2], 2, 1 + rnd(16), 2, big, mods, 2, rnd(4), rnd(4));
		make_module(&mods[3], 3, 1 + rnd(8), 2, 1024 + rnd(MAX_SITES - 1100), mods, 3,
			    rnd(30), rnd(30));
		dups_beside(&mods[3], rnd(4));
		/* in any order: a library may load below one loaded before */
		for (int i = 0, first = (int)rnd(MAX_MODULES); i < MAX_MODULES; i++) {
			module = (first + i * (round % 2 ? 1 : MAX_MODULES - 1)) % MAX_MODULES;
			merge(&mods[module]), check();
		}
		module = 2, merge_again(&mods[2]);

		/* One module unloads, and loads again. */
		module = (int)rnd(MAX_MODULES);
		forget(module, round % 2);
		merge(&mods[module]), check();

		/* Too few sites per callee to pay for placing them. */
		reset("many callees");
		make_module(&mods[0], 0, 300 + rnd(200), 2, 1024 + rnd(150), 0, 0, rnd(4), rnd(4));
		module = 0, merge(&mods[0]), check();
	}
	reset("done");
	printf("tables: all merges match the model\n");
	return 0;
}
