/* SPDX-License-Identifier: MIT */
/* The value-domain rule both plugins share (README "Value domains";
 * gcc/domain.cc, clang/domain.cpp): boundaries of relational tests and
 * the type's ends, sign tests in every spelling, narrowing and widening
 * conversions, runs of cases crossing zero, a one-range switch, a value
 * kept in a local.  Each value must bind a variant exactly when the rule
 * gives it one, and the result must be the generic's; tests/report/
 * compilers.py also checks that both plugins give the same domains. */
#include <limits.h>
#include <stdint.h>
#include "try_commit.h"

__attribute__((multiverse)) int si;
__attribute__((multiverse)) unsigned int ui;
__attribute__((multiverse)) signed char sc;
__attribute__((multiverse)) unsigned char uc;
__attribute__((multiverse)) unsigned short us;
__attribute__((multiverse)) uint64_t u64;

/* x < c: c - 1 and c; x > c: c and c + 1 */
__attribute__((multiverse)) int lt(void) { return si < 5 ? 1 : 2; }
__attribute__((multiverse)) int gt(void) { return si > 5 ? 1 : 2; }
/* one side is the type's end alone: only that value */
__attribute__((multiverse)) int at_max(void) { return si >= INT_MAX ? 1 : 2; }
__attribute__((multiverse)) int at_umax(void) { return uc < 255 ? 1 : 2; }
/* sign tests: the values either side of the sign bit */
__attribute__((multiverse)) int sign_gt(void) { return ui > INT_MAX ? 1 : 2; }
__attribute__((multiverse)) int sign_cast(void) { return (int)ui < 0 ? 1 : 2; }
__attribute__((multiverse)) int sign_mask(void) { return (ui & 0x80000000u) ? 1 : 2; }
__attribute__((multiverse)) int sign_narrow(void) { return (signed char)uc < 0 ? 1 : 2; }
__attribute__((multiverse)) int sign_short(void) { return (short)us >= 0 ? 1 : 2; }
__attribute__((multiverse)) int sign_sc_mask(void) { return (sc & 0x80) ? 1 : 2; }
__attribute__((multiverse)) int sign_si_mask(void) { return (si & INT_MIN) ? 1 : 2; }
/* narrowing: the value that keeps the narrow type's value */
__attribute__((multiverse)) int narrow_case(void)
{
	switch ((unsigned char)si) { case 250: return 1; case 7: return 3; }
	return 2;
}
/* runs of cases: each value up to 16, else the ends, crossing zero too */
__attribute__((multiverse)) int runs(void)
{
	switch (si) { case -10 ... 10: return 1; case 50: return 7; default: return 2; }
}
__attribute__((multiverse)) int short_run(void)
{
	switch (sc) { case -2 ... 2: return 1; default: return 2; }
}
/* one range alone, which GCC makes an unsigned test of si + 10 */
__attribute__((multiverse)) int one_range(void)
{
	switch (si) { case -10 ... 10: return 1; default: return 2; }
}
/* through a local, as -O0 keeps it */
__attribute__((multiverse)) int local(void)
{
	int v = si;
	if (v == 3)
		return 1;
	return v > 9 ? 2 : 3;
}
__attribute__((multiverse)) int wide(void) { return u64 > 0x8000000000000000ull ? 1 : 2; }


int main(void)
{
	TRY(lt, si, 4, 1); TRY(lt, si, 5, 1); TRY(lt, si, 3, 0); TRY(lt, si, 6, 0);
	TRY(gt, si, 5, 1); TRY(gt, si, 6, 1); TRY(gt, si, 4, 0); TRY(gt, si, 7, 0);
	TRY(at_max, si, INT_MAX, 1); TRY(at_max, si, INT_MAX - 1, 0);
	TRY(at_umax, uc, 255, 1); TRY(at_umax, uc, 254, 0);
	TRY(sign_gt, ui, 0x7fffffffu, 1); TRY(sign_gt, ui, 0x80000000u, 1);
	TRY(sign_gt, ui, 0xffffffffu, 0);
	TRY(sign_cast, ui, 0x7fffffffu, 1); TRY(sign_cast, ui, 0x80000000u, 1);
	TRY(sign_cast, ui, 0xffffffffu, 0);
	TRY(sign_mask, ui, 0x7fffffffu, 1); TRY(sign_mask, ui, 0x80000000u, 1);
	TRY(sign_narrow, uc, 127, 1); TRY(sign_narrow, uc, 128, 1); TRY(sign_narrow, uc, 255, 0);
	TRY(sign_short, us, 32767, 1); TRY(sign_short, us, 32768, 1); TRY(sign_short, us, 65535, 0);
	TRY(sign_sc_mask, sc, -1, 1); TRY(sign_sc_mask, sc, -128, 0);
	TRY(sign_si_mask, si, -1, 1); TRY(sign_si_mask, si, INT_MIN, 0);
	TRY(narrow_case, si, 250, 1); TRY(narrow_case, si, 7, 1); TRY(narrow_case, si, 8, 0);
	TRY(runs, si, -10, 1); TRY(runs, si, 10, 1); TRY(runs, si, 50, 1);
	TRY(runs, si, -9, 0); TRY(runs, si, 9, 0);
	TRY(short_run, sc, -2, 1); TRY(short_run, sc, -1, 1); TRY(short_run, sc, 2, 1);
	TRY(short_run, sc, 3, 0);
	TRY(one_range, si, -10, 1); TRY(one_range, si, 10, 1); TRY(one_range, si, 5, 0);
	TRY(local, si, 3, 1); TRY(local, si, 9, 1); TRY(local, si, 10, 1); TRY(local, si, 4, 0);
	TRY(wide, u64, 0x8000000000000000ull, 1); TRY(wide, u64, 0x8000000000000001ull, 1);
	TRY(wide, u64, 0x8000000000000002ull, 0);
	CHECK_DONE();
}
