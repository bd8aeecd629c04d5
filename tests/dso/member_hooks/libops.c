/* SPDX-License-Identifier: MIT */
/* lib_ops is public, so this library's own calls through its hooks may
 * resolve to another module's definition and go through its GOT entry;
 * private_ops is hidden and called through memory. */
#include "ops.h"

struct ops lib_ops = { "lib", 0, 0 };
__attribute__((visibility("hidden"))) struct ops private_ops[2];

static int add1(int x) { return x + 1; }
static int neg(int x) { return -x; }
static int twice(int x) { return 2 * x; }

void lib_set(int (**hook)(int), enum target to)
{
	*hook = to == ADD1 ? add1 : to == NEG ? neg : twice;
}

__attribute__((noinline)) int lib_call_hook(int x) { return lib_ops.hook(x) + 1; }
__attribute__((noinline)) int lib_tail_filter(int x) { return lib_ops.filter(x); }
__attribute__((noinline)) int lib_call_private(int x) { return private_ops[1].hook(x) + 1; }
int (**lib_private_hook(void))(int) { return &private_ops[1].hook; }
