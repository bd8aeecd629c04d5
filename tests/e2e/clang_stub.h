/* SPDX-License-Identifier: MIT */
#ifndef CLANG_STUB_H
#define CLANG_STUB_H

/* Whether a call site of a function-pointer switch is multiverse-clang's
 * stub of it rather than a call: on x86-64 the stub's own jump is a site
 * too (clang/arch.h), 16-byte aligned and padded with int3, which no
 * compiler puts after a call.  (A program may mix both compilers.) */
static __inline__ int is_clang_stub(const void *site)
{
#if defined(__x86_64__)
	return !((unsigned long)site & 15) && ((const unsigned char *)site)[6] == 0xcc;
#else
	(void)site;
	return 0;
#endif
}

#endif
