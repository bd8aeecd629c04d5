/* SPDX-License-Identifier: MIT */
/* The executable defines native_off too, which interposes the library's:
 * the switch in the library, initialized to native_off, points to the
 * executable's.  Commit must not copy the library's plain native_off
 * (its record describes code that the pointer does not run): the site
 * calls the executable's.  A target that is the library's own code
 * (native_on, not interposed) is copied where the site allows it. */
#include "check.h"

extern volatile int flag;
extern void (*pv)(void);
void call_pv(void);
void point_pv(int on);

void native_off(void) { flag = 42; }

int main(void)
{
	flag = 5;
	call_pv();
	CHECK_EQ(flag, 42);
	CHECK(multiverse_commit() >= 1);
	flag = 5;
	call_pv();
	CHECK_EQ(flag, 42);
	const struct mv_info_site *s = multiverse_info_site(&pv, 0);
	CHECK(s && s->holds != MULTIVERSE_SITE_COPIED);

	point_pv(1);
	CHECK(multiverse_commit() >= 1);
	flag = 5;
	call_pv();
	CHECK_EQ(flag, 1);
#if defined(__OPTIMIZE__) && defined(__x86_64__)
	/* (AArch64's GOT load, adrp and ldr as one insn to GCC, is not
	 * described for the runtime to move: called there) */
	s = multiverse_info_site(&pv, 0);
	CHECK(s && s->holds == MULTIVERSE_SITE_COPIED);
#endif
	CHECK(multiverse_revert() >= 1);
	point_pv(0);
	flag = 5;
	call_pv();
	CHECK_EQ(flag, 42);
	CHECK_DONE();
}
