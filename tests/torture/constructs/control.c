/* SPDX-License-Identifier: MIT */
/* Unusual control flow in multiversed functions: computed goto with the
 * label table on the stack (labels remapped in every clone), setjmp in a
 * variant and longjmp out of a variant, a noreturn multiversed function,
 * and asm goto. */
#include <setjmp.h>
#include "torture.h"

__attribute__((multiverse)) int fast;

/* A threaded interpreter; the table is rebuilt on each call, so each
 * clone takes the addresses of its own labels. */
__attribute__((multiverse)) int interp(const unsigned char *code)
{
	void *tbl[4];
	int acc = 0;

	tbl[0] = &&op_halt;
	tbl[1] = &&op_inc;
	tbl[2] = &&op_dbl;
	tbl[3] = fast ? &&op_dbl : &&op_inc;
	goto *tbl[*code++];
op_inc:
	acc += 1;
	goto *tbl[*code++];
op_dbl:
	acc = acc ? acc * 2 : 1;
	goto *tbl[*code++];
op_halt:
	return fast ? acc + 1000 : acc;
}

static jmp_buf env;

__attribute__((noinline)) void bail(int v) { longjmp(env, v); }

/* longjmp out of a variant, through frames of its callees. */
__attribute__((multiverse)) int thrower(int x)
{
	if (fast && x > 2)
		bail(x * 10);
	if (!fast && x > 5)
		bail(x);
	return x;
}

/* setjmp (returns_twice) inside the multiversed function itself. */
__attribute__((multiverse)) int catcher(int x)
{
	volatile int calls = 0;
	int r = setjmp(env);

	if (r)
		return r + calls + (fast ? 1 : 0);
	calls++;
	return thrower(x);
}

__attribute__((multiverse, noreturn)) void die(int code)
{
	longjmp(env, fast ? code + 1 : code);
}

__attribute__((noinline)) int try_die(int code)
{
	int r = setjmp(env);

	if (r)
		return r;
	die(code);
}

__attribute__((multiverse)) int asm_goto(int x)
{
	__asm__ goto("testl %0, %0\n\tjnz %l1" : : "r"(x & (fast ? 2 : 1)) : "cc" : odd);
	return 0;
odd:
	return 1;
}

static void check_all(int f)
{
	static const unsigned char prog[] = { 1, 1, 2, 3, 1, 0 };

	/* inc inc dbl (3 = dbl if fast else inc) inc */
	CHECK_EQ(interp(prog), f ? 1000 + 9 : 6);
	CHECK_EQ(catcher(2), 2);
	CHECK_EQ(catcher(4), f ? 40 + 1 + 1 : 4);
	CHECK_EQ(catcher(7), f ? 70 + 1 + 1 : 7 + 1);
	CHECK_EQ(try_die(5), f ? 6 : 5);
	CHECK_EQ(asm_goto(1), !f);
	CHECK_EQ(asm_goto(2), f);
}

int main(void)
{
	int f;

	for (f = 0; f < 2; f++) {
		fast = f;
		check_all(f);
		CHECK(multiverse_commit() >= 0);
		fast = !f;
		CHECK_COMMITTED(interp);
		CHECK_COMMITTED(thrower);
		CHECK_COMMITTED(catcher);
		CHECK_COMMITTED(die);
		CHECK_COMMITTED(asm_goto);
		check_all(f);
		CHECK(multiverse_revert() >= 5);
		fast = f;
		check_all(f);
	}
	CHECK_DONE();
}
