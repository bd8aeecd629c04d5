/* SPDX-License-Identifier: MIT */
/* Revert restores the text byte for byte: the executable segments in
 * memory are compared with the executable file on disk before commit,
 * after commit (they must differ) and after revert (equal again). */
#include "text.h"
#include "check.h"

__attribute__((multiverse)) int sw;
__attribute__((multiverse)) int (*fp)(int);
static int twice(int x) { return 2 * x; }

__attribute__((multiverse)) int f(int x) { return sw ? x * 3 : x - 1; }
__attribute__((multiverse)) void empty(void) { if (sw) __asm__ volatile("nop"); }
__attribute__((noinline)) int use(int x) { empty(); return f(x) + fp(x); }
__attribute__((noinline)) int tail(int x) { return f(x); }

int main(void)
{
	fp = twice;
	CHECK_EQ(text_diffs(), 0);
	sw = 1;
	CHECK_EQ(use(1) + tail(1), 3 + 2 + 3);
	CHECK(multiverse_commit() >= 2);
	CHECK_EQ(use(1) + tail(1), 3 + 2 + 3);
	CHECK(text_diffs() > 0);
	sw = 0;
	CHECK(multiverse_commit() >= 1);
	CHECK(text_diffs() > 0);
	CHECK(multiverse_revert() >= 2);
	CHECK_EQ(text_diffs(), 0);
	CHECK_EQ(use(1) + tail(1), 0 + 2 + 0);

	/* Partial reverts, then a full one, also end pristine. */
	CHECK(multiverse_commit() >= 2);
	CHECK_EQ(multiverse_revert_fn(f), 1);
	CHECK(text_diffs() > 0);
	CHECK_EQ(multiverse_revert_refs(&fp), 1);
	CHECK(multiverse_revert() >= 1);
	CHECK_EQ(text_diffs(), 0);
	CHECK_DONE();
}
