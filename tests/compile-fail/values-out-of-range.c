/* SPDX-License-Identifier: MIT */
/* A value must be representable in the switch's own type: no C conversion
 * applies, so -1 is not UINT_MAX for an unsigned switch.  The extremes of
 * each type, last in this file, are accepted. */
// expect-error: 'small': value 300 does not fit the type 'unsigned char' of the switch
// expect-error: 'uc': value -1 does not fit the type 'unsigned char' of the switch
// expect-error: 'uc_char': value -1 does not fit the type 'unsigned char' of the switch
// expect-error: 'u8': value 256 does not fit the type 'uint8_t' {aka 'unsigned char'} of the switch
// expect-error: 'u16': value 65536 does not fit the type 'short unsigned int' of the switch
// expect-error: 'u32': value -1 does not fit the type 'uint32_t' {aka 'unsigned int'} of the switch
// expect-error: 'ull': value -1 does not fit the type 'long long unsigned int' of the switch
// expect-error: 's8': value 128 does not fit the type 'signed char' of the switch
// expect-error: 's16': value -32769 does not fit the type 'short int' of the switch
// expect-error: 's32': value 2147483648 does not fit the type 'int' of the switch
// expect-error: 's64': value 9223372036854775808 does not fit the type 'long long int' of the switch
// expect-error: 'b': value 2 does not fit the type '_Bool' of the switch
// expect-error: 'eb': value -1 does not fit the type 'enum big' of the switch
// expect-error: 'es': value 256 does not fit the type 'enum small' of the switch
// expect-clang-error: multiverse: 'small': value 300 does not fit the type 'unsigned char' of the switch
// expect-clang-error: multiverse: 'uc': value -1 does not fit the type 'unsigned char' of the switch
// expect-clang-error: multiverse: 'uc_char': value -1 does not fit the type 'unsigned char' of the switch
// expect-clang-error: multiverse: 'u8': value 256 does not fit the type 'uint8_t' of the switch
// expect-clang-error: multiverse: 'u16': value 65536 does not fit the type 'unsigned short' of the switch
// expect-clang-error: multiverse: 'u32': value -1 does not fit the type 'uint32_t' of the switch
// expect-clang-error: multiverse: 'ull': value -1 does not fit the type 'unsigned long long' of the switch
// expect-clang-error: multiverse: 's8': value 128 does not fit the type 'signed char' of the switch
// expect-clang-error: multiverse: 's16': value -32769 does not fit the type 'short' of the switch
// expect-clang-error: multiverse: 's32': value 2147483648 does not fit the type 'int' of the switch
// expect-clang-error: multiverse: 's64': value 9223372036854775808 does not fit the type 'long long' of the switch
// expect-clang-error: multiverse: 'b': value 2 does not fit the type '_Bool' of the switch
// expect-clang-error: multiverse: 'eb': value -1 does not fit the type 'enum big' of the switch
// expect-clang-error: multiverse: 'es': value 256 does not fit the type 'enum small' of the switch
// expect-clang-warning: left operand of comma operator has no effect
// expect-nothing-else
#include <stdint.h>

enum big { B_0, B_MAX = 0xffffffffu };
enum __attribute__((packed)) small { S_0, S_FF = 0xff };

__attribute__((multiverse(("values", 1, 300)))) unsigned char small;
__attribute__((multiverse("values", 0, -1))) unsigned char uc;
__attribute__((multiverse("values", (signed char)-1))) unsigned char uc_char;
__attribute__((multiverse("values", 256))) uint8_t u8;
__attribute__((multiverse("values", 65536))) unsigned short u16;
__attribute__((multiverse("values", -1))) uint32_t u32;
__attribute__((multiverse("values", -1))) unsigned long long ull;
__attribute__((multiverse("values", 128))) signed char s8;
__attribute__((multiverse("values", -32769))) short s16;
__attribute__((multiverse("values", 0x80000000u))) int s32;
__attribute__((multiverse("values", 0x8000000000000000ull))) long long s64;
__attribute__((multiverse("values", 2))) _Bool b;
__attribute__((multiverse("values", -1))) enum big eb;
__attribute__((multiverse("values", 256))) enum small es;

__attribute__((multiverse("values", 0, 255))) unsigned char ok_u8;
__attribute__((multiverse("values", -128, 127))) signed char ok_s8;
__attribute__((multiverse("values", 0xffffffffu))) uint32_t ok_u32;
__attribute__((multiverse("values", INT64_MIN, INT64_MAX))) int64_t ok_s64;
__attribute__((multiverse("values", UINT64_MAX))) uint64_t ok_u64;
__attribute__((multiverse("values", 0, 1))) _Bool ok_b;
__attribute__((multiverse("values", B_MAX))) enum big ok_eb;
