/* SPDX-License-Identifier: MIT */
/* Finding a recorded call site, and rewriting it behind the runtime's
 * back, as a debugger or another patcher might. */
#ifndef SITE_WRITE_H
#define SITE_WRITE_H

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include "check.h"
#include "../../common/descriptor.h"

extern const struct mv_desc_site __start___multiverse_site[]
	__attribute__((visibility("hidden")));
extern const struct mv_desc_site __stop___multiverse_site[]
	__attribute__((visibility("hidden")));

/* The site of callee inside fn: the one between fn and fn + 64. */
static uint8_t *site_in(void *fn, void *callee)
{
	for (const struct mv_desc_site *s = __start___multiverse_site;
	     s < __stop___multiverse_site; s++) {
		uint8_t *p = mv_desc_site_addr(s);
		if (mv_desc_site_callee(s) == callee && p >= (uint8_t *)fn && p < (uint8_t *)fn + 64)
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

/* Makes the call at site call to instead. */
static void write_call(uint8_t *site, const void *to)
{
	uint8_t call[CALL_LEN];
	encode_call(call, site, to);
	int fd = open("/proc/self/mem", O_RDWR);
	CHECK(fd >= 0 && pwrite(fd, call, CALL_LEN, (off_t)(uintptr_t)site) == CALL_LEN);
	close(fd);
	__builtin___clear_cache((char *)site, (char *)site + CALL_LEN);
}

#endif
