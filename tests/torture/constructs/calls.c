/* SPDX-License-Identifier: MIT */
/* Calls in every shape real code uses: direct calls and tail calls,
 * address-taken functions kept in const and writable tables (after commit
 * a call through the table must reach the variant), self and mutual
 * recursion, struct arguments and struct returns. */
#include "torture.h"

__attribute__((multiverse)) int mode;

struct vec { long x, y, z; };
struct pair { int a; char tag; };

__attribute__((multiverse)) int op_add(int a, int b)
{
	return mode ? a + b + 1000 : a + b;
}

__attribute__((multiverse)) int op_mul(int a, int b)
{
	return mode ? a * b + 1000 : a * b;
}

/* Recursion: the recursive call is a recorded site inside the generic and
 * inside every variant. */
__attribute__((multiverse)) long fact(int n)
{
	if (n <= 1)
		return mode ? 2 : 1;
	return n * fact(n - 1);
}

__attribute__((multiverse)) int is_odd(unsigned n);
__attribute__((multiverse)) int is_even(unsigned n)
{
	if (n == 0)
		return !mode;
	return is_odd(n - 1);
}
__attribute__((multiverse)) int is_odd(unsigned n)
{
	if (n == 0)
		return mode;
	return is_even(n - 1);
}

/* Tail recursion: a loop in the generic, a call of the generic in each
 * variant. */
__attribute__((multiverse)) unsigned walk(const unsigned *next, unsigned i, unsigned steps)
{
	if (!next[i])
		return mode ? steps + 100 : steps;
	return walk(next, next[i], steps + 1);
}

/* Struct by value in both directions, large (memory) and small
 * (registers). */
__attribute__((multiverse)) struct vec scale(struct vec v, long k)
{
	struct vec r;

	r.x = v.x * k;
	r.y = v.y * k;
	r.z = mode ? -v.z * k : v.z * k;
	return r;
}

__attribute__((multiverse)) struct pair mkpair(struct pair p)
{
	p.a += mode ? 10 : 1;
	p.tag = mode ? 'm' : p.tag;
	return p;
}

static int (*const ops_const[])(int, int) = { op_add, op_mul };
static int (*ops[2])(int, int);

struct handler { const char *name; int (*fn)(int, int); };
static struct handler handlers[] = { { "add", op_add }, { "mul", op_mul } };

__attribute__((noinline)) int run_table(int i, int a, int b)
{
	return ops_const[i](a, b) + ops[i](a, b) + handlers[i].fn(a, b);
}

__attribute__((noinline)) int tail_add(int a, int b) { return op_add(a, b); }

__attribute__((noinline)) long vsum(long k)
{
	struct vec v = { 1, 2, 3 };
	struct vec r = scale(v, k);
	return r.x + r.y + r.z;
}

__attribute__((noinline)) int pairsum(void)
{
	struct pair p = { 5, 'a' };
	struct pair q = mkpair(p);
	return q.a + q.tag;
}

static const unsigned chain[] = { 0, 2, 3, 4, 0 };

static void check_all(int m)
{
	CHECK_EQ(run_table(0, 2, 3), 3 * (5 + 1000 * m));
	CHECK_EQ(run_table(1, 2, 3), 3 * (6 + 1000 * m));
	CHECK_EQ(tail_add(4, 5), 9 + 1000 * m);
	CHECK_EQ(fact(5), m ? 240 : 120);
	CHECK_EQ(is_even(10), !m);
	CHECK_EQ(is_odd(7), !m);
	CHECK_EQ(vsum(2), m ? 2 + 4 - 6 : 12);
	CHECK_EQ(pairsum(), m ? 15 + 'm' : 6 + 'a');
	CHECK_EQ(walk(chain, 1, 0), m ? 103 : 3);
}

int main(void)
{
	int m;

	ops[0] = op_add;
	ops[1] = op_mul;
	check_all(0);
	mode = 1;
	check_all(1);
	for (m = 0; m < 2; m++) {
		mode = m;
		CHECK(multiverse_commit() >= 0);
		mode = !m;      /* bound: ignored until the next commit */
		CHECK_COMMITTED(op_add);
		CHECK_COMMITTED(op_mul);
		CHECK_COMMITTED(fact);
		CHECK_COMMITTED(is_even);
		CHECK_COMMITTED(is_odd);
		CHECK_COMMITTED(scale);
		CHECK_COMMITTED(mkpair);
		CHECK_COMMITTED(walk);
		check_all(m);
	}
	CHECK_SITES(fact, 1);
	CHECK_SITES(is_odd, 1);
	CHECK(multiverse_revert() >= 7);
	CHECK_REVERTED(fact);
	mode = 0;
	check_all(0);
	CHECK_DONE();
}
