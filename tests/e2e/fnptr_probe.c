/* SPDX-License-Identifier: MIT */
/* Probes: function-pointer switches that multiversed functions compare
 * with NULL.  Committed while NULL, the functions run a variant with
 * neither test nor call, whatever is written to the pointer afterwards;
 * committed while set, a variant whose calls are bound to the pointer's
 * value at commit, and still reach it after NULL is written.  Every form
 * of the test counts, for a global and a member switch; commit_refs and
 * commit_fn of the switch select its functions again, and revert makes
 * them test the pointer at run time. */
#define _GNU_SOURCE
#include <stdint.h>
#include "check.h"

static int seen, seen2;
static void count(int x) { seen += x; }
static void count2(int x) { seen2 += x; }

MULTIVERSE void (*probe)(int);
struct hooks {
	long calls;
	MULTIVERSE void (*on_call)(int);
};
struct hooks hooks;
int work;

MULTIVERSE __attribute__((noinline)) int plain_if(int x)
{
	if (probe)
		probe(x);
	work += x;
	return x;
}

MULTIVERSE __attribute__((noinline)) int not_form(int x)
{
	if (!probe)
		return 0;
	probe(x);
	return 1;
}

MULTIVERSE __attribute__((noinline)) int ne_null(int x)
{
	if (probe != NULL)
		probe(x);
	return x * 2;
}

MULTIVERSE __attribute__((noinline)) int is_on(void) { return probe != NULL; }

MULTIVERSE __attribute__((noinline)) int both(int x, int y)
{
	if (probe && y)
		probe(x);
	return x;
}

MULTIVERSE __attribute__((noinline)) int as_number(int x)
{
	if ((uintptr_t)probe != 0)
		probe(x);
	return x;
}

MULTIVERSE __attribute__((noinline)) void tail(int x)
{
	if (probe)
		probe(x);
}

MULTIVERSE __attribute__((noinline)) void member(int x)
{
	if (hooks.on_call)
		hooks.on_call(x);
	work++;
}

/* A copy in a local variable is not followed: its call would not be a
 * site (so says the compile report), and the function is not specialized
 * on the probe. */
MULTIVERSE __attribute__((noinline)) void local_copy(int x)
{
	void (*fp)(int) = probe;
	if (fp)
		fp(x);
	work++;
}

/* Nor is an atomic read followed: not specialized either. */
MULTIVERSE __attribute__((noinline)) void atomic_read(int x)
{
	if (probe)
		__atomic_load_n(&probe, __ATOMIC_RELAXED)(x);
	work++;
}

/* Not multiversed: its call is a site of the probe, outside any variant. */
__attribute__((noinline)) void plain_call(int x)
{
	if (probe)
		probe(x);
	__asm__ volatile("");
}

/* Calls each function with x; the probes' sum of what they were given. */
static int all(int x)
{
	int before = seen;

	plain_if(x);
	not_form(x);
	ne_null(x);
	tail(x);
	member(x);
	return seen - before;
}

static int committed(void *fn)
{
	const struct mv_info_fn *f = multiverse_info_fn(fn);
	return f && f->committed;
}

static int sites_hold(void *var, int holds)
{
	const struct mv_info_var *v = multiverse_info_var(var);
	int n = 0;

	for (unsigned i = 0; v && i < v->n_sites; i++)
		n += multiverse_info_site(var, i)->holds == holds;
	return n;
}

/* Whether multiverse_dump_info() prints text. */
static int dump_has(const char *text)
{
	char *dump = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&dump, &len);
	int has;

	multiverse_dump_info(f);
	fclose(f);
	has = dump && strstr(dump, text);
	free(dump);
	return has;
}

int main(void)
{
	CHECK_EQ(all(1), 0);
	probe = hooks.on_call = count;
	CHECK_EQ(all(1), 5);
	CHECK_EQ(multiverse_info_fn(local_copy)->n_variants, 0);
	CHECK_EQ(multiverse_info_fn(atomic_read)->n_variants, 0);
	seen = 0;
	local_copy(1);
	CHECK_EQ(seen, 1);
	CHECK_EQ(is_on(), 1);

	/* Committed while NULL: no call, whatever is written later. */
	probe = hooks.on_call = NULL;
	CHECK(multiverse_commit() >= 0);
	CHECK(committed(plain_if) && committed(member) && committed(is_on));
	CHECK_EQ(multiverse_is_committed(&probe), 0);     /* bound to no function */
	probe = hooks.on_call = count;
	CHECK_EQ(all(1), 0);
	CHECK_EQ(is_on(), 0);
	CHECK_EQ(not_form(1), 0);

	/* Committed while set: bound calls, which stay after NULL is written. */
	CHECK(multiverse_commit() >= 0);
	CHECK(committed(plain_if) && committed(tail) && committed(member));
	CHECK(committed(as_number) && committed(both));
	CHECK(!committed(local_copy));
	CHECK_EQ(sites_hold(&probe, MULTIVERSE_SITE_ORIGINAL), 0);
	CHECK_EQ(sites_hold(&probe, MULTIVERSE_SITE_SKIPPED), 0);
	CHECK(sites_hold(&probe, MULTIVERSE_SITE_CALL) >= 5);
	probe = hooks.on_call = NULL;
	CHECK_EQ(all(2), 10);
	seen = 0;
	as_number(3);
	both(4, 1);
	both(100, 0);
	CHECK_EQ(seen, 7);
	seen = 0;
	local_copy(1);
	CHECK_EQ(seen, 0);      /* the generic tests the pointer */
	CHECK_EQ(is_on(), 1);
	CHECK_EQ(not_form(1), 1);
	probe = count2;
	CHECK_EQ(all(1), 5);
	CHECK_EQ(seen2, 0);

	/* The switch alone: its functions follow it. */
	CHECK(multiverse_commit_refs(&probe) > 0);
	seen = seen2 = 0;
	plain_if(3);
	tail(4);
	CHECK_EQ(seen2, 7);
	CHECK_EQ(seen, 0);
	probe = NULL;
	CHECK(multiverse_commit_fn(&probe) > 0);
	CHECK_EQ(multiverse_is_committed(&probe), 0);
	CHECK(committed(plain_if));
	/* The sites in the variants for "not NULL" stay bound to count2, for
	 * threads still inside them; the others call through the pointer. */
	CHECK(sites_hold(&probe, MULTIVERSE_SITE_CALL) >= 3);
	CHECK(sites_hold(&probe, MULTIVERSE_SITE_ORIGINAL) >= 1);
	CHECK(dump_has("committed to NULL, its sites still reach"));
	probe = count;
	seen = seen2 = 0;
	plain_if(1);
	tail(1);
	CHECK_EQ(seen, 0);
	plain_call(2);
	CHECK_EQ(seen, 2);
	CHECK_EQ(seen2, 0);

	/* Reverted, the functions test the pointer at run time. */
	CHECK(multiverse_revert_refs(&probe) > 0);
	CHECK(!committed(plain_if) && !committed(tail));
	CHECK_EQ(multiverse_is_committed(&probe), 0);
	seen = 0;
	plain_if(5);
	CHECK_EQ(seen, 5);
	probe = NULL;
	plain_if(5);
	CHECK_EQ(seen, 5);

	/* A function is not committed on a switch that is not. */
	probe = count;
	CHECK_EQ(multiverse_commit_fn(plain_if), 0);
	CHECK(!committed(plain_if));
	CHECK(multiverse_commit_refs(&probe) > 0);
	CHECK(committed(plain_if));

	/* The dump names the guards. */
	CHECK(dump_has("probe == NULL") && dump_has("probe != NULL"));
	CHECK(dump_has("hooks.on_call != NULL"));

	CHECK(multiverse_revert() >= 0);
	probe = hooks.on_call = NULL;
	CHECK_EQ(all(1), 0);
	CHECK_DONE();
}
