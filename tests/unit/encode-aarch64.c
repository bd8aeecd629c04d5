/* SPDX-License-Identifier: MIT */
/*
 * The AArch64 encoder, decoder, emulator and trampoline reader, word for
 * word, on plain buffers.  Expected words are from the Arm ARM encodings
 * (and agree with GNU as/objdump).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"

#define CHECK(c) do { if (!(c)) { \
	printf("encode: line %d: %s\n", __LINE__, #c); exit(1); } } while (0)

static const uint8_t *words(uint32_t *buf, const uint32_t *w, size_t n)
{
	memcpy(buf, w, 4 * n);
	return (const uint8_t *)buf;
}

#define CODE(...) words(tmp, (const uint32_t[]){ __VA_ARGS__ }, \
	sizeof((const uint32_t[]){ __VA_ARGS__ }) / 4), \
	sizeof((const uint32_t[]){ __VA_ARGS__ })

static uint32_t tmp[8];

static uint32_t word(const uint8_t *b)
{
	uint32_t w;
	memcpy(&w, b, 4);
	return w;
}

static struct mv_insn site(int is_jmp)
{
	return (struct mv_insn){ .len = 4, .is_jmp = is_jmp };
}

static void test_decode(void)
{
	struct mv_insn i;

	CHECK(!mv_arch_decode(CODE(0x94000004), 0x1000, &i));          /* bl .+16 */
	CHECK(i.len == 4 && !i.is_jmp && !i.indirect && i.ref == 0x1010);
	CHECK(!mv_arch_decode(CODE(0x17ffffff), 0x1000, &i));          /* b .-4 */
	CHECK(i.len == 4 && i.is_jmp && i.ref == 0xffc);
	CHECK(!mv_arch_decode(CODE(0x96000000), 0x10000000, &i));      /* bl .-128 MiB */
	CHECK(i.ref == 0x10000000 - (128u << 20));
	CHECK(mv_arch_decode(CODE(0xd63f0020), 0x1000, &i));           /* blr x1 */
	CHECK(mv_arch_decode(CODE(0xd503201f), 0x1000, &i));           /* nop */
	CHECK(mv_arch_decode(CODE(0x94000004), 0x1002, &i));           /* misaligned */
}

static void test_branch(void)
{
	struct mv_insn s = site(0), j = site(1);
	uint8_t buf[4];

	CHECK(!mv_arch_branch(buf, &s, 0x1000, 0x1010) && word(buf) == 0x94000004);
	CHECK(!mv_arch_branch(buf, &j, 0x1000, 0xffc) && word(buf) == 0x17ffffff);
	CHECK(!mv_arch_branch(buf, &s, 0x10000000, 0x10000000 - (128u << 20)));
	CHECK(word(buf) == 0x96000000);
	CHECK(!mv_arch_branch(buf, &s, 0x1000, 0x1000 + (128u << 20) - 4));
	CHECK(mv_arch_branch(buf, &s, 0x1000, 0x1000 + (128u << 20)));   /* out of reach */
	CHECK(mv_arch_branch(buf, &s, 0x10000000, 0x10000000 - (128u << 20) - 4));
	CHECK(mv_arch_branch(buf, &s, 0x1000, 0x1002));                  /* misaligned */
	CHECK(!mv_arch_entry_jump(buf, 0x2000, 0x1000) && word(buf) == 0x17fffc00);
	CHECK(mv_arch_entry_jump(buf, 0x1000, 0x1000 + (1u << 28)));
	CHECK(word(mv_arch_entry_nop) == 0xd503201f);
}

static void test_classify(void)
{
	struct mv_body b;

#define IS(kind_, value_, ...) do { \
	mv_arch_classify(words(tmp, (const uint32_t[]){ __VA_ARGS__ }, \
		sizeof((const uint32_t[]){ __VA_ARGS__ }) / 4), &b); \
	CHECK(b.kind == (kind_) && b.value == (uint64_t)(value_)); } while (0)

	IS(MV_BODY_EMPTY, 0, 0xd65f03c0);                          /* ret */
	IS(MV_BODY_EMPTY, 0, 0xd503245f, 0xd65f03c0);              /* bti c; ret */
	IS(MV_BODY_CONST, 0, 0x52800000, 0xd65f03c0);              /* mov w0, #0 */
	IS(MV_BODY_CONST, 7, 0x528000e0, 0xd65f03c0);              /* mov w0, #7 */
	IS(MV_BODY_CONST, 0x12340000, 0x52a24680, 0xd65f03c0);     /* mov w0, #0x12340000 */
	IS(MV_BODY_CONST, 0xffffffff, 0x12800000, 0xd65f03c0);     /* mov w0, #-1 */
	IS(MV_BODY_CONST, -1, 0x92800000, 0xd65f03c0);             /* mov x0, #-1 */
	IS(MV_BODY_CONST, -100, 0x92800c60, 0xd65f03c0);           /* mov x0, #-100 */
	IS(MV_BODY_CONST, 0xbeef00000000ull, 0xd2d7dde0, 0xd65f03c0);
	IS(MV_BODY_CONST, 0, 0x2a1f03e0, 0xd65f03c0);              /* mov w0, wzr */
	IS(MV_BODY_OTHER, 0, 0x528000e1, 0xd65f03c0);              /* mov w1, #7 */
	IS(MV_BODY_OTHER, 0, 0x529c4800, 0x72a00020, 0xd65f03c0); /* two moves */
	IS(MV_BODY_OTHER, 0, 0x11000400, 0xd65f03c0);              /* add */
	IS(MV_BODY_OTHER, 0, 0x528000e0, 0xd503201f);              /* no ret */
	IS(MV_BODY_OTHER, 0, 0xd503233f, 0xd65f03c0);              /* paciasp first */
#undef IS
}

static void test_inline(void)
{
	struct mv_insn s = site(0), j = site(1);
	struct mv_body b;
	uint8_t buf[4];

#define INL(insn, kind_, value_, want) do { \
	b = (struct mv_body){ kind_, (uint64_t)(value_) }; \
	CHECK(!mv_arch_inline(buf, &(insn), &b) && word(buf) == (want)); } while (0)
#define NOT(insn, kind_, value_) do { \
	b = (struct mv_body){ kind_, (uint64_t)(value_) }; \
	CHECK(mv_arch_inline(buf, &(insn), &b)); } while (0)

	INL(s, MV_BODY_EMPTY, 0, 0xd503201f);                   /* nop */
	INL(j, MV_BODY_EMPTY, 0, 0xd65f03c0);                   /* ret at a tail call */
	INL(s, MV_BODY_CONST, 0, 0xd2800000);                   /* movz x0, #0 */
	INL(s, MV_BODY_CONST, 7, 0xd28000e0);
	INL(s, MV_BODY_CONST, 0x12340000, 0xd2a24680);          /* movz x0, #0x1234, lsl 16 */
	INL(s, MV_BODY_CONST, 0xbeef00000000ull, 0xd2d7dde0);
	INL(s, MV_BODY_CONST, -1, 0x92800000);                  /* movn x0, #0 */
	INL(s, MV_BODY_CONST, -100, 0x92800c60);
	INL(s, MV_BODY_CONST, 0xffffffff, 0x12800000);          /* movn w0, #0 */
	INL(s, MV_BODY_CONST, 0xfffffff0, 0x128001e0);          /* movn w0, #15 */
	NOT(s, MV_BODY_CONST, 123456);                          /* needs two */
	NOT(s, MV_BODY_CONST, 0x1122334455ull);
	NOT(j, MV_BODY_CONST, 7);                               /* tail call */
	NOT(s, MV_BODY_OTHER, 0);
#undef INL
#undef NOT
}

/* What every inlined word does, run through the emulator. */
static void test_emulate(void)
{
	struct mv_cpu c;
	uint8_t buf[4];
	struct mv_insn s = site(0);
	struct mv_body b;
	static const uint64_t values[] = { 0, 7, 0x12340000, 0xbeef00000000ull,
					   -1, -100, 0xffffffff, 0xfffffff0 };

	for (size_t k = 0; k < sizeof values / sizeof *values; k++) {
		b = (struct mv_body){ MV_BODY_CONST, values[k] };
		CHECK(!mv_arch_inline(buf, &s, &b));
		c = (struct mv_cpu){ .ip = 0x1000, .x0 = 0x5555, .lr = 0x9 };
		CHECK(!mv_arch_emulate(buf, 4, 0x1000, &c));
		CHECK(c.x0 == values[k] && c.ip == 0x1004 && c.lr == 0x9);
	}
	c = (struct mv_cpu){ .ip = 0x1000, .x0 = 1, .lr = 0x9 };
	CHECK(!mv_arch_emulate(CODE(0x94000004), 0x1000, &c));       /* bl */
	CHECK(c.ip == 0x1010 && c.lr == 0x1004 && c.x0 == 1);
	c = (struct mv_cpu){ .ip = 0x1000, .lr = 0x9 };
	CHECK(!mv_arch_emulate(CODE(0x17ffffff), 0x1000, &c));       /* b */
	CHECK(c.ip == 0xffc && c.lr == 0x9);
	CHECK(!mv_arch_emulate(CODE(0xd503201f), 0x1000, &c) && c.ip == 0x1004);
	c = (struct mv_cpu){ .ip = 0x1000, .lr = 0x4444 };
	CHECK(!mv_arch_emulate(CODE(0xd65f03c0), 0x1000, &c) && c.ip == 0x4444);
	CHECK(mv_arch_emulate(CODE(0xd63f0020), 0x1000, &c));         /* blr: never ours */
	CHECK(mv_arch_emulate(CODE((uint32_t)0xd429aac0), 0x1000, &c)); /* the breakpoint */
}

static void test_live_safe(void)
{
	uint8_t bl[4], b[4], nop[4], mov[4], ret[4], bp[4];

	memcpy(bl, CODE(0x94000004));
	memcpy(b, CODE(0x14000004));
	memcpy(nop, CODE(0xd503201f));
	memcpy(mov, CODE(0xd28000e0));
	memcpy(ret, CODE(0xd65f03c0));
	memcpy(bp, MV_ARCH_BREAKPOINT, 4);
	CHECK(word(bp) == 0xd429aac0);                                  /* brk #0x4d56 */
	CHECK(mv_arch_live_safe(bl, bl, 4) && mv_arch_live_safe(bl, nop, 4));
	CHECK(mv_arch_live_safe(nop, b, 4) && mv_arch_live_safe(b, bp, 4));
	CHECK(!mv_arch_live_safe(bl, mov, 4) && !mv_arch_live_safe(mov, bl, 4));
	CHECK(!mv_arch_live_safe(b, ret, 4) && !mv_arch_live_safe(ret, b, 4));
}

static void test_trampoline(void)
{
	struct mv_tramp t;

	/* PLT entry: adrp x16, P; ldr x17, [x16, #0x18]; add x16, x16, #0x18; br x17 */
	CHECK(!mv_arch_trampoline(CODE(0x90000090, 0xf9400e11, 0x91006210, 0xd61f0220),
				  0x400000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x410018);
	/* with bti c and autia1716 */
	CHECK(!mv_arch_trampoline(CODE(0xd503245f, 0x90000090, 0xf9400e11, 0x91006210,
				       0xd503219f, 0xd61f0220), 0x400000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x410018);
	/* the plugin's stub: adrp x16, sw; ldr x16, [x16, #0x20]; br x16 */
	CHECK(!mv_arch_trampoline(CODE(0xb0000010, 0xf9401210, 0xd61f0200), 0x400ffc, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x401020);
	/* through the GOT: ...; ldr x16, [x16]; br x16 */
	CHECK(!mv_arch_trampoline(CODE(0xb0000010, 0xf9401210, 0xf9400210, 0xd61f0200),
				  0x400ffc, &t));
	CHECK(t.kind == MV_TRAMP_SLOT2 && t.slot == 0x401020 && t.disp == 0);
	/* a member switch 0x18 bytes into its object: ldr x16, [x16, #0x18] */
	CHECK(!mv_arch_trampoline(CODE(0xb0000010, 0xf9401210, 0xf9400e10, 0xd61f0200),
				  0x400ffc, &t));
	CHECK(t.kind == MV_TRAMP_SLOT2 && t.slot == 0x401020 && t.disp == 0x18);
	/* the GOT stub with bti c, as lld relaxes it: adrp x16, sw;
	 * add x16, x16, #0x40; ldr x16, [x16]; br x16 */
	CHECK(!mv_arch_trampoline(CODE(0xd503245f, 0x90000010, 0x91010210, 0xf9400210,
				       0xd61f0200), 0x7fffffc, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x8000040);
	CHECK(!mv_arch_trampoline(CODE(0x90000010, 0x91010210, 0xf9400e10, 0xd61f0200),
				  0x8000000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x8000058);
	/* veneers: adrp x16, T; add x16, x16, #0x40; br x16 */
	CHECK(!mv_arch_trampoline(CODE(0x90000010, 0x91010210, 0xd61f0200), 0x8000000, &t));
	CHECK(t.kind == MV_TRAMP_JUMP && t.target == 0x8000040);
	/* ldr x16, .+8; br x16; .xword T */
	CHECK(!mv_arch_trampoline(CODE(0x58000050, 0xd61f0200, 0x89abcdef, 0x01234567),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_JUMP && t.target == 0x0123456789abcdefull);
	/* ldr x16, .+16; adr x17, .+12; add x16, x16, x17; br x16; .xword T-. */
	CHECK(!mv_arch_trampoline(CODE(0x58000090, 0x10000071, 0x8b110210, 0xd61f0200,
				       0x10000000, 0), 0x1000, &t));
	CHECK(t.kind == MV_TRAMP_JUMP && t.target == 0x1010 + 0x10000000);
	/* not trampolines: a stub jumping through another register, a plain
	 * function, and one cut short */
	CHECK(mv_arch_trampoline(CODE(0xb0000010, 0xf9401210, 0xd61f0220), 0x400ffc, &t));
	CHECK(mv_arch_trampoline(CODE(0xa9bf7bfd, 0x910003fd, 0x94000000, 0xd65f03c0),
				 0x1000, &t));
	CHECK(mv_arch_trampoline(CODE(0x90000090, 0xf9400e11), 0x400000, &t));
}

/* A far-call gate: the words, read back as the veneer it is. */
static void test_gate(void)
{
	uint8_t b[MV_ARCH_GATE_LEN];
	struct mv_tramp t;
	uintptr_t target = 0x123456789abcull, slot;

	mv_arch_gate(b, target);
	CHECK(word(b) == 0x58000050 && word(b + 4) == 0xd61f0200);      /* ldr x16, .+8; br x16 */
	memcpy(&slot, b + 8, 8);
	CHECK(slot == target);
	CHECK(!mv_arch_trampoline(b, sizeof b, 0x1000, &t));
	CHECK(t.kind == MV_TRAMP_JUMP && t.target == target);
}

int main(void)
{
	test_gate();
	test_decode();
	test_branch();
	test_classify();
	test_inline();
	test_emulate();
	test_live_safe();
	test_trampoline();
	puts("encode-aarch64: ok");
	return 0;
}
