/* SPDX-License-Identifier: MIT */
/* Switch values are exact in the switch's own type: the extremes of every
 * width and signedness, enums with negative and with large unsigned
 * enumerators (also packed ones), and _Bool, both as explicit "values"
 * domains and as constants the function compares the switch with.  Each
 * value must bind a variant that computes what the generic computes, and
 * multiverse_dump_info() must print guards and values in the switch's
 * type. */
#include <limits.h>
#include <stdint.h>
#include "check.h"

/* Explicit domains: every extreme of the type, and f_NAME() computes with
 * the switch so that each variant's result differs. */
#define EXPLICIT(T, name, ...) \
	__attribute__((multiverse("values", __VA_ARGS__))) T name; \
	__attribute__((multiverse)) unsigned long long f_##name(void) \
	{ return (unsigned long long)name * 3 + 1; }

EXPLICIT(signed char, xs8, 0, -1, SCHAR_MIN, SCHAR_MAX)
EXPLICIT(unsigned char, xu8, 0, 0x7f, 0x80, UCHAR_MAX)
EXPLICIT(short, xs16, 0, -1, SHRT_MIN, SHRT_MAX)
EXPLICIT(unsigned short, xu16, 0, 0x7fff, 0x8000, USHRT_MAX)
EXPLICIT(int, xs32, 0, -1, INT_MIN, INT_MAX)
EXPLICIT(uint32_t, xu32, 0x80000001u, 0, 1, 0x7fffffff, 0x80000000u, UINT_MAX)
EXPLICIT(long long, xs64, 0, -1, INT64_MIN, INT64_MAX, INT32_MIN, 0x80000000LL)
EXPLICIT(unsigned long long, xu64, 0, INT64_MAX, 1ULL << 63, UINT64_MAX, 0x80000000u, UINT32_MAX)
EXPLICIT(_Bool, xbool, 1)

enum neg { N_MIN = INT_MIN, N_M1 = -1, N_0 = 0, N_MAX = INT_MAX };
enum big { B_0, B_2P31 = 0x80000000u, B_MAX = 0xffffffffu };
enum huge { H_0, H_2P63 = 0x8000000000000000ull, H_MAX = 0xffffffffffffffffull };
enum neg64 { NN_MIN = INT64_MIN, NN_M1 = -1, NN_MAX = INT64_MAX };
enum __attribute__((packed)) small { S_0, S_80 = 0x80, S_FF = 0xff };
enum __attribute__((packed)) snarrow { SN_MIN = -128, SN_M1 = -1, SN_MAX = 127 };

_Static_assert(sizeof(enum big) == 4 && (enum big)-1 > 0, "enum big is unsigned int");
_Static_assert(sizeof(enum huge) == 8 && (enum huge)-1 > 0, "enum huge is unsigned long");
_Static_assert(sizeof(enum small) == 1 && (enum small)-1 > 0, "enum small is unsigned char");
_Static_assert(sizeof(enum snarrow) == 1 && (enum snarrow)-1 < 0, "enum snarrow is signed char");

/* Enum domains: every enumerator.  The switch statements keep each value
 * apart; but for enum neg, the fourth case is no enumerator, so it is outside
 * the domain (hence no -Wswitch), as is the default case. */
#pragma GCC diagnostic ignored "-Wswitch"
#define ENUM(T, name, a, b, c, d) \
	__attribute__((multiverse)) enum T name; \
	__attribute__((multiverse)) int f_##name(void) \
	{ switch (name) { case a: return 11; case b: return 12; case c: return 13; \
			  case d: return 14; default: return 15; } }

ENUM(neg, eneg, N_MIN, N_M1, N_0, N_MAX)
ENUM(big, ebig, B_0, B_2P31, B_MAX, B_MAX - 1)
ENUM(huge, ehuge, H_0, H_2P63, H_MAX, H_MAX - 1)
ENUM(neg64, eneg64, NN_MIN, NN_M1, NN_MAX, NN_MAX - 1)
ENUM(small, esmall, S_0, S_80, S_FF, S_FF - 1)
ENUM(snarrow, esnarrow, SN_MIN, SN_M1, SN_MAX, SN_MAX - 1)

/* An explicit domain on an enum of unsigned type. */
__attribute__((multiverse("values", B_2P31, B_MAX))) enum big ebigx;
__attribute__((multiverse)) int f_ebigx(void) { return ebigx == B_MAX ? 21 : ebigx == B_2P31 ? 22 : 23; }

__attribute__((multiverse)) _Bool bl;
__attribute__((multiverse)) int f_bl(void) { return bl ? 31 : 32; }

/* Compared constants: the domain comes from the tests in the body,
 * including boundaries at the very ends of the type. */
__attribute__((multiverse)) uint32_t cu32;
__attribute__((multiverse)) int f_cu32_eq(void) { return cu32 == 0xffffffffu ? 1 : 2; }
__attribute__((multiverse)) int f_cu32_gt(void) { return cu32 > INT_MAX ? 3 : 4; }
__attribute__((multiverse)) int f_cu32_and(void) { return cu32 & 0x80000000u ? 5 : 6; }
__attribute__((multiverse)) int f_cu32_lt(void) { return cu32 < UINT_MAX ? 7 : 8; }
__attribute__((multiverse)) int f_cu32_mid(void) { return cu32 == 0x80000001u ? 9 : 10; }

__attribute__((multiverse)) int cs32;
__attribute__((multiverse)) int f_cs32_min(void) { return cs32 == INT_MIN ? 1 : 2; }
__attribute__((multiverse)) int f_cs32_max(void) { return cs32 > INT_MAX - 1 ? 3 : 4; }
__attribute__((multiverse)) int f_cs32_lt(void) { return cs32 < INT_MIN + 1 ? 5 : 6; }
__attribute__((multiverse)) int f_cs32_neg(void) { return cs32 == -1 ? 7 : 8; }

__attribute__((multiverse)) uint64_t cu64;
__attribute__((multiverse)) int f_cu64_gt(void) { return cu64 > INT64_MAX ? 1 : 2; }
__attribute__((multiverse)) int f_cu64_eq(void) { return cu64 == UINT64_MAX ? 3 : 4; }
__attribute__((multiverse)) int f_cu64_lt(void) { return cu64 < UINT64_MAX ? 5 : 6; }
__attribute__((multiverse)) int f_cu64_hi(void) { return cu64 == 0x80000001u ? 7 : 8; }

__attribute__((multiverse)) int64_t cs64;
__attribute__((multiverse)) int f_cs64_max(void) { return cs64 > INT64_MAX - 1 ? 1 : 2; }
__attribute__((multiverse)) int f_cs64_min(void) { return cs64 < INT64_MIN + 1 ? 3 : 4; }
__attribute__((multiverse)) int f_cs64_neg(void) { return cs64 == -1 ? 5 : 6; }

__attribute__((multiverse)) unsigned char cu8;
__attribute__((multiverse)) int f_cu8_eq(void) { return cu8 == 255 ? 1 : 2; }
__attribute__((multiverse)) int f_cu8_gt(void) { return cu8 > 127 ? 3 : 4; }
__attribute__((multiverse)) int f_cu8_and(void) { return cu8 & 0x80 ? 5 : 6; }

__attribute__((multiverse)) signed char cs8;
__attribute__((multiverse)) int f_cs8_min(void) { return cs8 == -128 ? 1 : 2; }
__attribute__((multiverse)) int f_cs8_neg(void) { return cs8 < 0 ? 3 : 4; }
__attribute__((multiverse)) int f_cs8_max(void) { return cs8 == 127 ? 5 : 6; }

__attribute__((multiverse)) unsigned short cu16;
__attribute__((multiverse)) int f_cu16_eq(void) { return cu16 == 0xffff ? 1 : 2; }
__attribute__((multiverse)) int f_cu16_ge(void) { return cu16 >= 0x8000 ? 3 : 4; }

__attribute__((multiverse)) short cs16;
__attribute__((multiverse)) int f_cs16_min(void) { return cs16 == SHRT_MIN ? 1 : 2; }
__attribute__((multiverse)) int f_cs16_max(void) { return cs16 >= SHRT_MAX ? 3 : 4; }

/* Merging: each body below is the same for all its values, so merging
 * coalesces adjacent values into a range, which must never wrap around
 * the type's ends. */
#define MERGED(T, name, ...) \
	__attribute__((multiverse("values", __VA_ARGS__))) T name; \
	__attribute__((multiverse)) int f_##name(void) { return name != 5 ? 41 : 42; }

MERGED(uint32_t, mu32, 0x7fffffff, 0x80000000u)
MERGED(int, ms32, -1, 0)
MERGED(uint32_t, mu32w, 0, UINT_MAX)
MERGED(int, ms32w, INT_MIN, INT_MAX)
MERGED(uint64_t, mu64w, 0, UINT64_MAX)
MERGED(int64_t, ms64w, INT64_MIN, INT64_MAX)
MERGED(unsigned char, mu8w, 0, 0xff)
MERGED(signed char, ms8, 0x7f, -128)

/* Relational tests near the ends of the type that GCC leaves relational,
 * so the domain has both sides of the boundary c and c +/- 1. */
__attribute__((multiverse)) int f_cu32_ge(void) { return cu32 >= 0xfffffff0u ? 11 : 12; }
__attribute__((multiverse)) int f_cs32_le(void) { return cs32 <= INT_MIN + 5 ? 11 : 12; }
__attribute__((multiverse)) int f_cu64_gt2(void) { return cu64 > UINT64_MAX - 16 ? 11 : 12; }
__attribute__((multiverse)) int f_cs64_lt2(void) { return cs64 < INT64_MIN + 16 ? 11 : 12; }
__attribute__((multiverse)) int f_cs64_ge2(void) { return cs64 >= INT64_MAX - 16 ? 11 : 12; }

/* Sets var, checks the generic's result, commits fn, checks that it binds
 * iff `bound` (unless ANY: GCC folds x > INT_MAX - 1 into x == INT_MAX, so
 * whether INT_MAX - 1 has a variant of its own is GCC's choice), and that
 * the bound code (through the generic's entry and through a recorded call
 * site) computes the same. */
#define ANY (-1)
#define TRY(fn, var, val, bound, want) do { \
	multiverse_revert(); \
	var = (val); \
	CHECK_EQ(OPAQUE(&fn)(), (want)); \
	CHECK(multiverse_commit_fn(fn) >= 0); \
	if ((bound) != ANY && multiverse_is_committed(fn) != (bound)) { \
		fprintf(stderr, "%s with %s = %s (%llu): committed %d, want %d\n", \
			#fn, #var, #val, (unsigned long long)(val), \
			multiverse_is_committed(fn), bound); \
		check_failures++; \
	} \
	CHECK_EQ(OPAQUE(&fn)(), (want)); \
	CHECK_EQ(fn(), (want)); \
} while (0)

#define X(name, val, bound) \
	TRY(f_##name, name, val, bound, (unsigned long long)(__typeof__(name))(val) * 3 + 1)

/* Whether the dump holds `text`: guards and values in the switch's type. */
static int dump_has(const char *text)
{
	char *buf = 0;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int found;

	multiverse_dump_info(f);
	fclose(f);
	found = strstr(buf, text) != 0;
	if (!found)
		fprintf(stderr, "dump lacks \"%s\"\n", text);
	free(buf);
	return found;
}

int main(void)
{
	X(xs8, 0, 1); X(xs8, -1, 1); X(xs8, SCHAR_MIN, 1); X(xs8, SCHAR_MAX, 1);
	X(xs8, 5, 0);
	X(xu8, 0, 1); X(xu8, 0x7f, 1); X(xu8, 0x80, 1); X(xu8, UCHAR_MAX, 1);
	X(xu8, 5, 0);
	X(xs16, 0, 1); X(xs16, -1, 1); X(xs16, SHRT_MIN, 1); X(xs16, SHRT_MAX, 1);
	X(xs16, 5, 0);
	X(xu16, 0, 1); X(xu16, 0x7fff, 1); X(xu16, 0x8000, 1); X(xu16, USHRT_MAX, 1);
	X(xu16, 5, 0);
	X(xs32, 0, 1); X(xs32, -1, 1); X(xs32, INT_MIN, 1); X(xs32, INT_MAX, 1);
	X(xs32, 5, 0);
	X(xu32, 0x80000001u, 1); X(xu32, 0, 1); X(xu32, 1, 1);
	X(xu32, 0x7fffffff, 1); X(xu32, 0x80000000u, 1); X(xu32, UINT_MAX, 1);
	X(xu32, 0x80000002u, 0); X(xu32, 5, 0);
	X(xs64, 0, 1); X(xs64, -1, 1); X(xs64, INT64_MIN, 1); X(xs64, INT64_MAX, 1);
	X(xs64, INT32_MIN, 1); X(xs64, 0x80000000LL, 1);
	X(xs64, 0xffffffffLL, 0); X(xs64, 5, 0);
	X(xu64, 0, 1); X(xu64, INT64_MAX, 1); X(xu64, 1ULL << 63, 1);
	X(xu64, UINT64_MAX, 1); X(xu64, 0x80000000u, 1); X(xu64, UINT32_MAX, 1);
	X(xu64, 0xffffffff80000000ULL, 0); X(xu64, 5, 0);
	X(xbool, 1, 1); X(xbool, 0, 0);

	TRY(f_eneg, eneg, N_MIN, 1, 11); TRY(f_eneg, eneg, N_M1, 1, 12);
	TRY(f_eneg, eneg, N_0, 1, 13); TRY(f_eneg, eneg, N_MAX, 1, 14);
	TRY(f_eneg, eneg, (enum neg)5, 0, 15);
	TRY(f_ebig, ebig, B_0, 1, 11); TRY(f_ebig, ebig, B_2P31, 1, 12);
	TRY(f_ebig, ebig, B_MAX, 1, 13); TRY(f_ebig, ebig, (enum big)(B_MAX - 1), 0, 14);
	TRY(f_ebig, ebig, (enum big)5, 0, 15);
	TRY(f_ehuge, ehuge, H_0, 1, 11); TRY(f_ehuge, ehuge, H_2P63, 1, 12);
	TRY(f_ehuge, ehuge, H_MAX, 1, 13); TRY(f_ehuge, ehuge, (enum huge)5, 0, 15);
	TRY(f_eneg64, eneg64, NN_MIN, 1, 11); TRY(f_eneg64, eneg64, NN_M1, 1, 12);
	TRY(f_eneg64, eneg64, NN_MAX, 1, 13); TRY(f_eneg64, eneg64, (enum neg64)5, 0, 15);
	TRY(f_esmall, esmall, S_0, 1, 11); TRY(f_esmall, esmall, S_80, 1, 12);
	TRY(f_esmall, esmall, S_FF, 1, 13); TRY(f_esmall, esmall, (enum small)5, 0, 15);
	TRY(f_esnarrow, esnarrow, SN_MIN, 1, 11); TRY(f_esnarrow, esnarrow, SN_M1, 1, 12);
	TRY(f_esnarrow, esnarrow, SN_MAX, 1, 13);
	TRY(f_esnarrow, esnarrow, (enum snarrow)5, 0, 15);
	TRY(f_ebigx, ebigx, B_MAX, 1, 21); TRY(f_ebigx, ebigx, B_2P31, 1, 22);
	TRY(f_ebigx, ebigx, B_0, 0, 23);
	TRY(f_bl, bl, 0, 1, 32); TRY(f_bl, bl, 1, 1, 31);

	TRY(f_cu32_eq, cu32, 0xffffffffu, 1, 1); TRY(f_cu32_eq, cu32, 0, 1, 2);
	TRY(f_cu32_eq, cu32, 0x80000000u, 0, 2);
	TRY(f_cu32_gt, cu32, 0x80000000u, 1, 3); TRY(f_cu32_gt, cu32, 0x7fffffffu, 1, 4);
	TRY(f_cu32_gt, cu32, 0, 1, 4); TRY(f_cu32_gt, cu32, 0x80000005u, 0, 3);
	TRY(f_cu32_and, cu32, 0x80000000u, 1, 5); TRY(f_cu32_and, cu32, 0, 1, 6);
	TRY(f_cu32_and, cu32, 0x80000005u, 0, 5);
	TRY(f_cu32_lt, cu32, UINT_MAX, 1, 8); TRY(f_cu32_lt, cu32, UINT_MAX - 1, ANY, 7);
	TRY(f_cu32_lt, cu32, 0, 1, 7); TRY(f_cu32_lt, cu32, 5, 0, 7);
	TRY(f_cu32_mid, cu32, 0x80000001u, 1, 9); TRY(f_cu32_mid, cu32, 1, 1, 10);
	TRY(f_cu32_mid, cu32, 0x80000002u, 0, 10);

	TRY(f_cs32_min, cs32, INT_MIN, 1, 1); TRY(f_cs32_min, cs32, 0, 1, 2);
	TRY(f_cs32_min, cs32, INT_MAX, 0, 2);
	TRY(f_cs32_max, cs32, INT_MAX, 1, 3); TRY(f_cs32_max, cs32, INT_MAX - 1, ANY, 4);
	TRY(f_cs32_max, cs32, -5, 0, 4);
	TRY(f_cs32_lt, cs32, INT_MIN, 1, 5); TRY(f_cs32_lt, cs32, INT_MIN + 1, ANY, 6);
	TRY(f_cs32_lt, cs32, 5, 0, 6);
	TRY(f_cs32_neg, cs32, -1, 1, 7); TRY(f_cs32_neg, cs32, -2, 0, 8);

	TRY(f_cu64_gt, cu64, 1ULL << 63, 1, 1); TRY(f_cu64_gt, cu64, INT64_MAX, 1, 2);
	TRY(f_cu64_gt, cu64, 0, 1, 2); TRY(f_cu64_gt, cu64, (1ULL << 63) + 5, 0, 1);
	TRY(f_cu64_eq, cu64, UINT64_MAX, 1, 3); TRY(f_cu64_eq, cu64, 0, 1, 4);
	TRY(f_cu64_eq, cu64, UINT64_MAX - 5, 0, 4);
	TRY(f_cu64_lt, cu64, UINT64_MAX, 1, 6); TRY(f_cu64_lt, cu64, UINT64_MAX - 1, ANY, 5);
	TRY(f_cu64_lt, cu64, 5, 0, 5);
	TRY(f_cu64_hi, cu64, 0x80000001u, 1, 7); TRY(f_cu64_hi, cu64, 0xffffffff80000001ULL, 0, 8);

	TRY(f_cs64_max, cs64, INT64_MAX, 1, 1); TRY(f_cs64_max, cs64, INT64_MAX - 1, ANY, 2);
	TRY(f_cs64_max, cs64, 5, 0, 2);
	TRY(f_cs64_min, cs64, INT64_MIN, 1, 3); TRY(f_cs64_min, cs64, INT64_MIN + 1, ANY, 4);
	TRY(f_cs64_min, cs64, 5, 0, 4);
	TRY(f_cs64_neg, cs64, -1, 1, 5); TRY(f_cs64_neg, cs64, 0xffffffffLL, 0, 6);

	TRY(f_cu8_eq, cu8, 255, 1, 1); TRY(f_cu8_eq, cu8, 0, 1, 2); TRY(f_cu8_eq, cu8, 5, 0, 2);
	TRY(f_cu8_gt, cu8, 128, 1, 3); TRY(f_cu8_gt, cu8, 127, 1, 4); TRY(f_cu8_gt, cu8, 200, 0, 3);
	TRY(f_cu8_and, cu8, 0x80, 1, 5); TRY(f_cu8_and, cu8, 0, 1, 6); TRY(f_cu8_and, cu8, 0x85, 0, 5);

	TRY(f_cs8_min, cs8, -128, 1, 1); TRY(f_cs8_min, cs8, 0, 1, 2); TRY(f_cs8_min, cs8, 5, 0, 2);
	TRY(f_cs8_neg, cs8, -1, 1, 3); TRY(f_cs8_neg, cs8, 0, 1, 4); TRY(f_cs8_neg, cs8, -5, 0, 3);
	TRY(f_cs8_max, cs8, 127, 1, 5); TRY(f_cs8_max, cs8, 5, 0, 6);

	TRY(f_cu16_eq, cu16, 0xffff, 1, 1); TRY(f_cu16_eq, cu16, 5, 0, 2);
	TRY(f_cu16_ge, cu16, 0x8000, 1, 3); TRY(f_cu16_ge, cu16, 0x7fff, 1, 4);
	TRY(f_cu16_ge, cu16, 0x9000, 0, 3);

	TRY(f_cs16_min, cs16, SHRT_MIN, 1, 1); TRY(f_cs16_min, cs16, 5, 0, 2);
	TRY(f_cs16_max, cs16, SHRT_MAX, 1, 3); TRY(f_cs16_max, cs16, SHRT_MAX - 1, ANY, 4);
	TRY(f_cs16_max, cs16, 5, 0, 4);

	TRY(f_cu32_ge, cu32, 0xfffffff0u, 1, 11); TRY(f_cu32_ge, cu32, 0xffffffefu, 1, 12);
	TRY(f_cu32_ge, cu32, 0xfffffff5u, 0, 11);
	TRY(f_cs32_le, cs32, INT_MIN + 5, 1, 11); TRY(f_cs32_le, cs32, INT_MIN + 6, 1, 12);
	TRY(f_cs32_le, cs32, INT_MIN + 2, 0, 11);
	TRY(f_cu64_gt2, cu64, UINT64_MAX - 15, 1, 11); TRY(f_cu64_gt2, cu64, UINT64_MAX - 16, 1, 12);
	TRY(f_cu64_gt2, cu64, UINT64_MAX - 2, 0, 11);
	TRY(f_cs64_lt2, cs64, INT64_MIN + 15, 1, 11); TRY(f_cs64_lt2, cs64, INT64_MIN + 16, 1, 12);
	TRY(f_cs64_lt2, cs64, INT64_MIN + 2, 0, 11);
	TRY(f_cs64_ge2, cs64, INT64_MAX - 16, 1, 11); TRY(f_cs64_ge2, cs64, INT64_MAX - 17, 1, 12);
	TRY(f_cs64_ge2, cs64, INT64_MAX - 2, 0, 11);

	TRY(f_mu32, mu32, 0x7fffffff, 1, 41); TRY(f_mu32, mu32, 0x80000000u, 1, 41);
	TRY(f_mu32, mu32, 0x7ffffffe, 0, 41); TRY(f_mu32, mu32, 0x80000001u, 0, 41);
	TRY(f_ms32, ms32, -1, 1, 41); TRY(f_ms32, ms32, 0, 1, 41);
	TRY(f_ms32, ms32, 1, 0, 41); TRY(f_ms32, ms32, -2, 0, 41);
	TRY(f_mu32w, mu32w, 0, 1, 41); TRY(f_mu32w, mu32w, UINT_MAX, 1, 41);
	TRY(f_mu32w, mu32w, 1, 0, 41); TRY(f_mu32w, mu32w, 0x80000000u, 0, 41);
	TRY(f_ms32w, ms32w, INT_MIN, 1, 41); TRY(f_ms32w, ms32w, INT_MAX, 1, 41);
	TRY(f_ms32w, ms32w, 0, 0, 41); TRY(f_ms32w, ms32w, 5, 0, 42);
	TRY(f_mu64w, mu64w, 0, 1, 41); TRY(f_mu64w, mu64w, UINT64_MAX, 1, 41);
	TRY(f_mu64w, mu64w, 1ULL << 63, 0, 41); TRY(f_mu64w, mu64w, 5, 0, 42);
	TRY(f_ms64w, ms64w, INT64_MIN, 1, 41); TRY(f_ms64w, ms64w, INT64_MAX, 1, 41);
	TRY(f_ms64w, ms64w, 0, 0, 41); TRY(f_ms64w, ms64w, -1, 0, 41);
	TRY(f_mu8w, mu8w, 0, 1, 41); TRY(f_mu8w, mu8w, 0xff, 1, 41);
	TRY(f_mu8w, mu8w, 0x80, 0, 41);
	TRY(f_ms8, ms8, 0x7f, 1, 41); TRY(f_ms8, ms8, -128, 1, 41);
	TRY(f_ms8, ms8, 0, 0, 41); TRY(f_ms8, ms8, -1, 0, 41);
#ifdef __OPTIMIZE__
	CHECK(dump_has("mu32 in [2147483647, 2147483648]"));
	CHECK(dump_has("ms32 in [-1, 0]"));
#endif

	/* The dump prints bounds and current values in the switch's type. */
	multiverse_revert();
	xu32 = 0x80000001u;
	xs8 = -128;
	xu64 = UINT64_MAX;
	CHECK(dump_has("xu32 in [2147483649, 2147483649]"));
	CHECK(dump_has("xu32 in [4294967295, 4294967295]"));
	CHECK(dump_has("xs8 in [-128, -128]"));
	CHECK(dump_has("xu8 in [255, 255]"));
	CHECK(dump_has("xs64 in [-9223372036854775808, -9223372036854775808]"));
	CHECK(dump_has("xu64 in [18446744073709551615, 18446744073709551615]"));
	CHECK(dump_has("xbool in [1, 1]"));
	CHECK(dump_has("ebig in [2147483648, 2147483648]"));
	CHECK(dump_has("switch xu32 at "));
	CHECK(dump_has("4-byte unsigned, untracked, bound, value 2147483649\n"));
	CHECK(dump_has("1-byte signed, untracked, bound, value -128\n"));
	CHECK(dump_has("8-byte unsigned, untracked, bound, value 18446744073709551615\n"));

	const struct mv_info_var *vi = multiverse_info_var(&xu32);
	CHECK(vi && vi->width == 4 && !vi->is_signed);
	vi = multiverse_info_var(&ebig);
	CHECK(vi && vi->width == 4 && !vi->is_signed);
	vi = multiverse_info_var(&esnarrow);
	CHECK(vi && vi->width == 1 && vi->is_signed);
	vi = multiverse_info_var(&xbool);
	CHECK(vi && vi->width == 1 && !vi->is_signed);
	CHECK_DONE();
}
