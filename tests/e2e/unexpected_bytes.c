/* SPDX-License-Identifier: MIT */
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
#include "../../common/descriptor.h"

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

#ifdef __x86_64__
enum { CALL_LEN = 5 };
static int is_call(const uint8_t *p) { return p[0] == 0xe8; }
static void encode_call(uint8_t *call, const uint8_t *site, const void *to)
{
	int32_t rel = (int32_t)((intptr_t)to - (intptr_t)(site + 5));
	call[0] = 0xe8;
	memcpy(call + 1, &rel, 4);
}
#else   /* AArch64: bl */
enum { CALL_LEN = 4 };
static uint32_t insn(const uint8_t *p) { uint32_t i; memcpy(&i, p, 4); return i; }
static int is_call(const uint8_t *p) { return (insn(p) & 0xfc000000) == 0x94000000; }
static void encode_call(uint8_t *call, const uint8_t *site, const void *to)
{
	uint32_t bl = 0x94000000 | ((uint32_t)(((intptr_t)to - (intptr_t)site) >> 2) & 0x03ffffff);
	memcpy(call, &bl, 4);
}
#endif

/* Makes the call at site call g instead. */
static void redirect_to_g(uint8_t *site)
{
	uint8_t call[CALL_LEN];
	encode_call(call, site, (const void *)g);
	int fd = open("/proc/self/mem", O_RDWR);
	CHECK(fd >= 0 && pwrite(fd, call, CALL_LEN, (off_t)(uintptr_t)site) == CALL_LEN);
	close(fd);
	__builtin___clear_cache((char *)site, (char *)site + CALL_LEN);
}

int main(void)
{
	uint8_t *a = site_in(call_a), *b = site_in(call_b), *c = site_in(call_c);
	CHECK(a && b && c && is_call(a) && is_call(b) && is_call(c));
	if (!a || !b || !c)
		CHECK_DONE();

	redirect_to_g(a);               /* before the tables are built */
	CHECK_EQ(multiverse_init(), 0);
	redirect_to_g(b);               /* after: the runtime knew other bytes */
	uint8_t before_a[CALL_LEN], before_b[CALL_LEN];
	memcpy(before_a, a, CALL_LEN);
	memcpy(before_b, b, CALL_LEN);

	sw = 1;
	CHECK_EQ(multiverse_commit(), 1);
	CHECK_EQ(multiverse_is_committed(f), 1);
	CHECK(memcmp(a, before_a, CALL_LEN) == 0);
	CHECK(memcmp(b, before_b, CALL_LEN) == 0);
	CHECK(strstr(multiverse_last_error(), "left alone") != NULL);
	const struct mv_info_fn *fi = multiverse_info_fn(f);
	CHECK(fi && fi->n_sites_skipped == 2);

	sw = 0;                         /* bound: the good site calls the variant */
	CHECK_EQ(call_a(), 31);
	CHECK_EQ(call_b(), 32);
	CHECK_EQ(call_c(), 13);
	CHECK_EQ(OPAQUE(&f)(), 10);

	CHECK_EQ(multiverse_revert(), 1);
	CHECK(memcmp(a, before_a, CALL_LEN) == 0);
	CHECK(memcmp(b, before_b, CALL_LEN) == 0);
	CHECK_EQ(call_c(), 23);
	CHECK_DONE();
}
