/* SPDX-License-Identifier: MIT */
/* Value domains for every switch type: enums, _Bool, 1/2/4/8-byte signed
 * and unsigned integers, explicit value lists with negative and 64-bit
 * values, and domains inferred from comparisons and case labels.  For each value the
 * committed result must equal the generic's, and commit must bind exactly
 * the values that have a variant. */
#include <stdint.h>
#include "try_commit.h"

enum color { RED = -2, GREEN = 5, BLUE = 9 };

__attribute__((multiverse)) enum color color;
__attribute__((multiverse)) _Bool flag;
__attribute__((multiverse)) signed char s8;
__attribute__((multiverse)) unsigned short u16;
__attribute__((multiverse("values", -7, 0, 3000000000LL, -5000000000LL))) long long s64;
__attribute__((multiverse(("values", 1, 0xfffffffffffffff0ULL)))) unsigned long long u64;
__attribute__((multiverse)) int level;         /* compared with constants */
__attribute__((multiverse)) unsigned int mask; /* bit tests */
__attribute__((multiverse)) int run;           /* cases in a row, and a range */

__attribute__((multiverse)) int f_color(void)
{
	switch (color) {
	case RED: return 1;
	case GREEN: return 2;
	default: return 3;
	}
}
__attribute__((multiverse)) int f_flag(void) { return flag ? 10 : 20; }
__attribute__((multiverse)) int f_s8(void) { return s8 ? -s8 : 99; }
__attribute__((multiverse)) int f_u16(void) { return u16 ? 7 : 8; }
__attribute__((multiverse)) long long f_s64(void) { return s64 / 2 + 1; }
__attribute__((multiverse)) unsigned long long f_u64(void) { return u64 ^ 0xff; }
__attribute__((multiverse)) int f_level(void)
{
	if (level == 42) return 1;
	if (level > 100) return 2;
	return 3;
}
__attribute__((multiverse)) int f_mask(void) { return (mask & 4) ? 5 : 6; }
/* GCC merges the cases in a row into a range, LLVM keeps three: every
 * value of either counts */
__attribute__((multiverse)) int f_run(void)
{
	switch (run) {
	case 3: case 4: case 5: return 1;
	case 10 ... 12: return 2;
	case 20 ... 1000: return 4;     /* its ends only: not too many variants */
	default: return 3;
	}
}


int main(void)
{
	TRY(f_color, color, RED, 1);
	TRY(f_color, color, GREEN, 1);
	TRY(f_color, color, BLUE, 1);
	TRY(f_color, color, (enum color)4, 0);
	TRY(f_flag, flag, 0, 1);
	TRY(f_flag, flag, 1, 1);
	TRY(f_s8, s8, 0, 1);
	TRY(f_s8, s8, 1, 1);
	TRY(f_s8, s8, -1, 0);
	TRY(f_u16, u16, 0, 1);
	TRY(f_u16, u16, 1, 1);
	TRY(f_u16, u16, 65535, 0);
	TRY(f_s64, s64, -7, 1);
	TRY(f_s64, s64, 0, 1);
	TRY(f_s64, s64, 3000000000LL, 1);
	TRY(f_s64, s64, -5000000000LL, 1);
	TRY(f_s64, s64, 1, 0);
	TRY(f_u64, u64, 1, 1);
	TRY(f_u64, u64, 0xfffffffffffffff0ULL, 1);
	TRY(f_u64, u64, 0, 0);
	TRY(f_level, level, 42, 1);
	TRY(f_level, level, 0, 1);
	TRY(f_level, level, 101, 1);
	TRY(f_level, level, 100, 1);
	TRY(f_level, level, 43, 0);
	TRY(f_mask, mask, 4, 1);
	TRY(f_mask, mask, 0, 1);
	TRY(f_mask, mask, 1, 1);
	TRY(f_mask, mask, 6, 0);
	TRY(f_run, run, 4, 1);
	TRY(f_run, run, 11, 1);
	TRY(f_run, run, 12, 1);
	TRY(f_run, run, 6, 0);
	TRY(f_run, run, 500, 0);

	const struct mv_info_var *vi = multiverse_info_var(&s64);
	CHECK(vi && vi->width == 8 && vi->is_signed && !vi->is_fnptr);
	vi = multiverse_info_var(&u16);
	CHECK(vi && vi->width == 2 && !vi->is_signed);
	vi = multiverse_info_var(&s8);
	CHECK(vi && vi->width == 1 && vi->is_signed);
	CHECK_DONE();
}
