/* Commit never writes a call site that does not hold the instruction the
 * runtime expects.  Here the program rewrites two sites of f itself, as a
 * debugger or another patcher might: one before the runtime first reads
 * its tables, one after.  Commit must leave both alone, report them, and
 * still bind the function and its untouched site. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include "check.h"
#include "../../runtime/descriptor.h"

extern const struct mv_desc_site __start___multiverse_site[]
	__attribute__((visibility("hidden")));
extern const struct mv_desc_site __stop___multiverse_site[]
	__attribute__((visibility("hidden")));

__attribute__((multiverse)) int sw;
__attribute__((multiverse)) int f(void) { return sw ? 10 : 20; }
__attribute__((noinline)) int g(void) { __asm__ volatile(""); return 30; }

__attribute__((noinline)) int call_a(void) { return f() + 1; }
__attribute__((noinline)) int call_b(void) { return f() + 2; }
__attribute__((noinline)) int call_c(void) { return f() + 3; }

/* The site of f inside fn: the one between fn and fn + 64. */
static uint8_t *site_in(void *fn)
{
	for (const struct mv_desc_site *s = __start___multiverse_site;
	     s < __stop___multiverse_site; s++) {
		uint8_t *p = s->site;
		if (s->callee == (void *)f && p >= (uint8_t *)fn && p < (uint8_t *)fn + 64)
			return p;
	}
	return NULL;
}

/* Makes the call at site call g instead. */
static void redirect_to_g(uint8_t *site)
{
	uint8_t call[5] = { 0xe8 };
	int32_t rel = (int32_t)((intptr_t)g - (intptr_t)(site + 5));
	memcpy(call + 1, &rel, 4);
	int fd = open("/proc/self/mem", O_RDWR);
	CHECK(fd >= 0 && pwrite(fd, call, 5, (off_t)(uintptr_t)site) == 5);
	close(fd);
}

int main(void)
{
	uint8_t *a = site_in(call_a), *b = site_in(call_b), *c = site_in(call_c);
	CHECK(a && b && c && a[0] == 0xe8 && b[0] == 0xe8 && c[0] == 0xe8);
	if (!a || !b || !c)
		CHECK_DONE();

	redirect_to_g(a);               /* before the tables are built */
	CHECK_EQ(multiverse_init(), 0);
	redirect_to_g(b);               /* after: the runtime knew other bytes */
	uint8_t before_a[5], before_b[5];
	memcpy(before_a, a, 5);
	memcpy(before_b, b, 5);

	sw = 1;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_is_committed(f), 1);
	CHECK(memcmp(a, before_a, 5) == 0);
	CHECK(memcmp(b, before_b, 5) == 0);
	CHECK(strstr(multiverse_last_error(), "left alone") != NULL);
	const struct mv_info_fn *fi = multiverse_info_fn(f);
	CHECK(fi && fi->n_sites_skipped == 2);

	sw = 0;                         /* bound: the good site calls the variant */
	CHECK_EQ(call_a(), 31);
	CHECK_EQ(call_b(), 32);
	CHECK_EQ(call_c(), 13);
	CHECK_EQ(OPAQUE(&f)(), 10);

	CHECK_EQ(multiverse_revert(), 1);
	CHECK(memcmp(a, before_a, 5) == 0);
	CHECK(memcmp(b, before_b, 5) == 0);
	CHECK_EQ(call_c(), 23);
	CHECK_DONE();
}
