/* SPDX-License-Identifier: MIT */
/* A function-pointer switch with multiverse("inline", N): each call and
 * tail call through it has NOPs before it, so that its site holds N
 * bytes (a tail call one return more), and commit binds the padded call
 * like any other: bound until the next commit, restored by revert. */
#include <stdint.h>
#include "check.h"
#include "../../common/descriptor.h"

extern const struct mv_desc_site __start___multiverse_site[]
	__attribute__((visibility("hidden")));
extern const struct mv_desc_site __stop___multiverse_site[]
	__attribute__((visibility("hidden")));

static int one(int x) { return x + 1; }
static int two(int x) { return x + 2; }

__attribute__((multiverse("inline", 16))) int (*hook)(int) = one;

__attribute__((noinline)) int call_hook(int x) { return hook(x) * 2; }
__attribute__((noinline)) int tail_hook(int x) { return hook(x); }

int main(void)
{
	int sites = 0;
	for (const struct mv_desc_site *s = __start___multiverse_site;
	     s < __stop___multiverse_site; s++) {
		const char *site = mv_desc_site_addr(s);
		if (mv_desc_site_callee(s) != (void *)&hook || is_clang_stub(site))
			continue;
		sites++;
		/* the call is 4 to 6 bytes: the padding makes up the rest (a
		 * tail call's, one return more: 1 byte, or an instruction) */
		CHECK(s->pad >= 16 - 6 && s->pad <= 16);
#ifdef __aarch64__
		/* a branch over the nops */
		CHECK_EQ(s->pad % 4, 0);
		CHECK_EQ(*(const uint32_t *)(site - s->pad),
			 0x14000000 | s->pad / 4);
		for (uint32_t i = 4; i < s->pad; i += 4)
			CHECK_EQ(*(const uint32_t *)(site - s->pad + i),
				 0xd503201f);
#endif
	}
	CHECK_EQ(sites, 2);

	CHECK_EQ(call_hook(1), 4);
	hook = two;
	CHECK_EQ(multiverse_commit_fn(&hook), 1);
	hook = one;                     /* bound until the next commit */
	CHECK_EQ(call_hook(1), 6);
	CHECK_EQ(tail_hook(1), 3);
	CHECK_EQ(multiverse_revert_fn(&hook), 1);
	CHECK_EQ(call_hook(1), 4);
	CHECK_EQ(tail_hook(1), 2);
	CHECK_DONE();
}
