/* SPDX-License-Identifier: MIT */
/* Copies of variants whose instructions hold both a PC-relative operand
 * and an immediate after it: atomic stores of constants (mov $imm,
 * sym(%rip) on x86-64, whose immediate GCC's length attribute does not
 * count) and atomic read-modify-writes.  The stores are copied, with
 * their references moved; a read-modify-write whose encoding the plugin
 * cannot place is called instead.  An empty asm statement that names a
 * global as its operand emits nothing, and so refers to nothing: the
 * copy's references are the other instructions'.  Either way the code
 * does what the source says. */
#include "text.h"
#include "check.h"
#include <stdatomic.h>

__attribute__((multiverse)) int mode;
atomic_int a, e;
_Atomic long b;
_Atomic short c;
_Atomic char d;

__attribute__((multiverse("inline", 64))) void stores(void);
__attribute__((multiverse)) void stores(void)
{
	if (mode) {
		atomic_store_explicit(&a, 1, memory_order_relaxed);
		atomic_store_explicit(&b, 100000, memory_order_relaxed);
		atomic_store_explicit(&c, 7, memory_order_relaxed);
		atomic_store_explicit(&d, 9, memory_order_relaxed);
	}
}

__attribute__((multiverse("inline", 64))) void updates(void);
__attribute__((multiverse)) void updates(void)
{
	if (mode) {
		atomic_fetch_add(&e, 1);
		atomic_fetch_add(&b, 1000);
		atomic_fetch_or(&a, 4);
	}
}

long out, in = 42, fenced;

__attribute__((multiverse("inline", 64))) void barrier(void);
__attribute__((multiverse)) void barrier(void)
{
	if (mode) {
		out = in;
		__asm__ volatile("" : "=m"(fenced));
	}
}

__attribute__((noinline)) void run(void) { stores(); updates(); barrier(); __asm__ volatile(""); }

static void reset(void)
{
	a = 0, b = 0, c = 0, d = 0, e = 0, out = 0;
}

static void expect(int va, long vb, int vc, int vd, int ve)
{
	CHECK_EQ(a, va);
	CHECK_EQ(b, vb);
	CHECK_EQ(c, vc);
	CHECK_EQ(d, vd);
	CHECK_EQ(e, ve);
	CHECK_EQ(out, ve ? 42 : 0);
}

int main(void)
{
	int holds;

	mode = 1;
	run();
	expect(5, 101000, 7, 9, 1);

	reset();
	CHECK_EQ(multiverse_commit(), 3);
#ifdef __OPTIMIZE__
	CHECK_EQ(multiverse_info_site(stores, 0)->holds, MULTIVERSE_SITE_COPIED);
	CHECK_EQ(multiverse_info_site(barrier, 0)->holds, MULTIVERSE_SITE_COPIED);
#endif
	holds = multiverse_info_site(updates, 0)->holds;
	CHECK(holds == MULTIVERSE_SITE_COPIED || holds == MULTIVERSE_SITE_CALL);
	run();
	expect(5, 101000, 7, 9, 1);

	reset();
	mode = 0;                       /* empty variants */
	CHECK_EQ(multiverse_commit(), 3);
	run();
	expect(0, 0, 0, 0, 0);

	mode = 1;
	CHECK_EQ(multiverse_revert(), 3);
	run();
	expect(5, 101000, 7, 9, 1);
	CHECK_EQ(text_diffs(), 0);
	CHECK_DONE();
}
