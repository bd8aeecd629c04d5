/* SPDX-License-Identifier: MIT */
/*
 * The x86-64 encoder and decoder, byte for byte, on plain buffers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch.h"

#define CHECK(c) do { if (!(c)) { \
	printf("encode: line %d: %s\n", __LINE__, #c); exit(1); } } while (0)

/* Whether buf holds exactly the bytes spelled in hex, e.g. "e8 00 01". */
static int same(const uint8_t *buf, size_t n, const char *hex)
{
	size_t i = 0;
	char *end;

	for (; *hex; i++, hex = end) {
		unsigned long b = strtoul(hex, &end, 16);

		if (end == hex || i >= n || buf[i] != b)
			return 0;
	}
	return i == n;
}

#define BYTES(s) (const uint8_t *)(s), sizeof(s) - 1

static struct mv_insn site(unsigned len, int is_jmp)
{
	return (struct mv_insn){ .len = len, .is_jmp = is_jmp };
}

static void test_decode(void)
{
	struct mv_insn i;

	CHECK(!mv_arch_decode(BYTES("\xe8\x10\x00\x00\x00"), 0x1000, &i));
	CHECK(i.len == 5 && !i.is_jmp && !i.indirect && i.ref == 0x1015);
	CHECK(!mv_arch_decode(BYTES("\xe9\xfb\xff\xff\xff"), 0x1000, &i));
	CHECK(i.len == 5 && i.is_jmp && !i.indirect && i.ref == 0x1000);
	CHECK(!mv_arch_decode(BYTES("\xff\x15\x00\x01\x00\x00"), 0x1000, &i));
	CHECK(i.len == 6 && !i.is_jmp && i.indirect && i.ref == 0x1106);
	CHECK(!mv_arch_decode(BYTES("\xff\x25\xfa\xff\xff\xff"), 0x1000, &i));
	CHECK(i.len == 6 && i.is_jmp && i.indirect && i.ref == 0x1000);
	/* -fno-plt call relaxed by the linker: addr32 call rel32, direct. */
	CHECK(!mv_arch_decode(BYTES("\x67\xe8\x0a\x00\x00\x00"), 0x1000, &i));
	CHECK(i.len == 6 && !i.is_jmp && !i.indirect && i.ref == 0x1010);
	/* A 5-byte site is decoded from 6 bytes too. */
	CHECK(!mv_arch_decode(BYTES("\xe8\x00\x00\x00\x00\x90"), 0x1000, &i) && i.len == 5);

	CHECK(mv_arch_decode(BYTES("\x90\x90\x90\x90\x90\x90"), 0x1000, &i));
	CHECK(mv_arch_decode(BYTES("\xff\x14\x25\x00\x00\x00"), 0x1000, &i));  /* call *abs32 */
	CHECK(mv_arch_decode(BYTES("\x41\xff\xd3\x90\x90\x90"), 0x1000, &i));  /* call *%r11 */
	CHECK(mv_arch_decode(BYTES("\x2e\xe8\x00\x00\x00\x00"), 0x1000, &i));  /* ours, not the compiler's */
	CHECK(mv_arch_decode(BYTES("\x0f\x1f\x44\x00\x00"), 0x1000, &i));
	CHECK(mv_arch_decode(BYTES("\xe8\x00\x00\x00"), 0x1000, &i));          /* too short */
	CHECK(mv_arch_decode(BYTES("\xff\x15\x00\x00\x00"), 0x1000, &i));
}

static void test_branch(void)
{
	uint8_t b[8];
	struct mv_insn call5 = site(5, 0), jmp5 = site(5, 1), call6 = site(6, 0), jmp6 = site(6, 1);
	uintptr_t at = 0x40000000;

	CHECK(!mv_arch_branch(b, &call5, 0x1000, 0x2000) && same(b, 5, "e8 fb 0f 00 00"));
	CHECK(!mv_arch_branch(b, &jmp5, 0x2000, 0x1000) && same(b, 5, "e9 fb ef ff ff"));
	CHECK(!mv_arch_branch(b, &call6, 0x1000, 0x2000) && same(b, 6, "2e e8 fa 0f 00 00"));
	CHECK(!mv_arch_branch(b, &jmp6, 0x1000, 0x1006) && same(b, 6, "2e e9 00 00 00 00"));

	/* rel32 reaches [next - 2^31, next + 2^31 - 1]. */
	CHECK(!mv_arch_branch(b, &call5, at, at + 5 + 0x7fffffff) && same(b, 5, "e8 ff ff ff 7f"));
	CHECK(!mv_arch_branch(b, &call5, at, at + 5 - 0x80000000u) && same(b, 5, "e8 00 00 00 80"));
	memset(b, 0xcc, sizeof b);
	CHECK(mv_arch_branch(b, &call5, at, at + 5 + 0x80000000u));
	CHECK(mv_arch_branch(b, &jmp6, at, at + 6 - 0x80000001u));
	CHECK(mv_arch_branch(b, &call6, 0x1000, 0x1000 + (1ull << 40)));
	CHECK(same(b, 8, "cc cc cc cc cc cc cc cc"));      /* untouched on failure */
}

static struct mv_body classify(const char *code)
{
	struct mv_body body;

	mv_arch_classify((const uint8_t *)code, &body);
	return body;
}

#define IS(s, k, v) do { struct mv_body x_ = classify(s); \
	CHECK(x_.kind == (k) && x_.value == (uint64_t)(v)); } while (0)
#define NOT(s) IS(s, MV_BODY_OTHER, 0)

static void test_classify(void)
{
	IS("\xc3", MV_BODY_EMPTY, 0);
	IS("\xf3\xc3", MV_BODY_EMPTY, 0);
	IS("\xf3\x0f\x1e\xfa\xc3", MV_BODY_EMPTY, 0);
	IS("\x31\xc0\xc3", MV_BODY_CONST, 0);
	IS("\x33\xc0\xc3", MV_BODY_CONST, 0);
	IS("\x48\x31\xc0\xc3", MV_BODY_CONST, 0);
	IS("\x48\x33\xc0\xf3\xc3", MV_BODY_CONST, 0);
	IS("\xf3\x0f\x1e\xfa\x31\xc0\xc3", MV_BODY_CONST, 0);
	IS("\xb8\x78\x56\x34\x12\xc3", MV_BODY_CONST, 0x12345678);
	IS("\xb8\xff\xff\xff\xff\xc3", MV_BODY_CONST, 0xffffffffu);
	IS("\x48\xc7\xc0\xfe\xff\xff\xff\xc3", MV_BODY_CONST, -2);
	IS("\x48\xc7\xc0\x00\x00\x00\x80\xc3", MV_BODY_CONST, (int64_t)INT32_MIN);
	IS("\x48\xb8\x88\x77\x66\x55\x44\x33\x22\x11\xc3", MV_BODY_CONST, 0x1122334455667788ull);
	IS("\x48\x83\xc8\xff\xc3", MV_BODY_CONST, -1);
	IS("\x83\xc8\xff\xc3", MV_BODY_CONST, 0xffffffffu);
	IS("\x6a\x80\x58\xc3", MV_BODY_CONST, -128);
	IS("\xf3\x0f\x1e\xfa\x6a\x05\x58\xf3\xc3", MV_BODY_CONST, 5);
	IS("\xb0\x07\xc3", MV_BODY_CONST8, 7);
	IS("\xb0\xff\xc3", MV_BODY_CONST8, 0xff);

	NOT("\xb8\x01\x00\x00\x00\x90\xc3");   /* more than a load */
	NOT("\x55\x48\x89\xe5\x5d\xc3");
	NOT("\x6a\x05\x59\xc3");               /* pop %rcx */
	NOT("\x31\xc9\xc3");                   /* xor %ecx,%ecx */
	NOT("\xb0\x07\x90");
	NOT("\xc2\x08\x00");                   /* ret $8 */
	NOT("\xf3\x0f\x1e\xfb\xc3");           /* endbr32 */
	NOT("\x90\xc3");
	NOT("\x48\x83\xc8\xfe\xc3");           /* or $-2,%rax */
	NOT("\xe9\x00\x00\x00\x00");
}

/* The classifier reads nothing past the ret it stops at. */
static void test_classify_edge(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct mv_body body;

	CHECK(m != MAP_FAILED && !mprotect(m + pg, pg, PROT_NONE));
	m[pg - 1] = 0xc3;
	mv_arch_classify(m + pg - 1, &body);
	CHECK(body.kind == MV_BODY_EMPTY);
	memcpy(m + pg - 6, "\xb8\x01\x00\x00\x00\xc3", 6);
	mv_arch_classify(m + pg - 6, &body);
	CHECK(body.kind == MV_BODY_CONST && body.value == 1);
	memcpy(m + pg - 6, "\xf3\x0f\x1e\xfa\xf3\xc3", 6);
	mv_arch_classify(m + pg - 6, &body);
	CHECK(body.kind == MV_BODY_EMPTY);
	munmap(m, 2 * pg);
}

static int inl(uint8_t *b, unsigned len, int is_jmp, enum mv_body_kind k, uint64_t v)
{
	struct mv_insn i = site(len, is_jmp);
	struct mv_body body = { k, v };

	memset(b, 0xcc, 8);
	return mv_arch_inline(b, &i, &body);
}

#define INL(len, jmp, k, v, hex) CHECK(!inl(b, len, jmp, k, v) && same(b, len, hex))
#define NOINL(len, jmp, k, v) CHECK(inl(b, len, jmp, k, v) && same(b, 8, "cc cc cc cc cc cc cc cc"))

static void test_inline(void)
{
	uint8_t b[8];

	INL(5, 0, MV_BODY_EMPTY, 0, "0f 1f 44 00 00");
	INL(6, 0, MV_BODY_EMPTY, 0, "66 0f 1f 44 00 00");
	INL(5, 1, MV_BODY_EMPTY, 0, "c3 0f 1f 40 00");
	INL(6, 1, MV_BODY_EMPTY, 0, "c3 0f 1f 44 00 00");

	/* Constants: one instruction filling the site, at call sites only. */
	INL(5, 0, MV_BODY_CONST, 0, "b8 00 00 00 00");
	INL(6, 0, MV_BODY_CONST, 0, "2e b8 00 00 00 00");
	INL(5, 0, MV_BODY_CONST, 7, "b8 07 00 00 00");
	INL(6, 0, MV_BODY_CONST, 7, "2e b8 07 00 00 00");
	INL(5, 0, MV_BODY_CONST, 0x89abcdef, "b8 ef cd ab 89");
	INL(5, 0, MV_BODY_CONST, 0xffffffff, "b8 ff ff ff ff");
	INL(5, 0, MV_BODY_CONST, -1, "2e 48 83 c8 ff");
	INL(5, 0, MV_BODY_CONST8, 7, "b8 07 00 00 00");
	INL(6, 0, MV_BODY_CONST8, 0x80, "2e b8 80 00 00 00");

	NOINL(5, 1, MV_BODY_CONST, 0);                         /* mov; ret: two instructions */
	NOINL(5, 1, MV_BODY_CONST, 7);
	NOINL(6, 1, MV_BODY_CONST, 7);
	NOINL(5, 1, MV_BODY_CONST, -1);
	NOINL(5, 1, MV_BODY_CONST8, 0x80);
	NOINL(6, 0, MV_BODY_CONST, -1);                        /* would need two prefixes */
	NOINL(5, 0, MV_BODY_CONST, -10);                       /* no single 5-byte form */
	NOINL(5, 0, MV_BODY_CONST, -129);
	NOINL(6, 0, MV_BODY_CONST, (uint64_t)INT32_MIN);
	NOINL(6, 0, MV_BODY_CONST, 0x123456789ull);
	NOINL(6, 0, MV_BODY_OTHER, 0);
}

/* Classify then inline: the site reproduces the body's rax. */
static void test_roundtrip(void)
{
	uint8_t b[8];
	struct mv_insn call5 = site(5, 0), call6 = site(6, 0), jmp5 = site(5, 1);
	struct mv_body body;

	body = classify("\x48\xc7\xc0\x05\x00\x00\x00\xc3");
	CHECK(!mv_arch_inline(b, &call6, &body) && same(b, 6, "2e b8 05 00 00 00"));
	body = classify("\x83\xc8\xff\xc3");
	CHECK(!mv_arch_inline(b, &call6, &body) && same(b, 6, "2e b8 ff ff ff ff"));
	body = classify("\x48\xc7\xc0\xff\xff\xff\xff\xc3");
	CHECK(mv_arch_inline(b, &jmp5, &body));
	CHECK(!mv_arch_inline(b, &call5, &body) && same(b, 5, "2e 48 83 c8 ff"));
	body = classify("\x6a\xf6\x58\xc3");                 /* -Os: push $-10; pop %rax */
	CHECK(body.kind == MV_BODY_CONST && body.value == (uint64_t)-10);
	CHECK(mv_arch_inline(b, &call5, &body));
}

/* Runs mv_arch_emulate on bytes at a pretend address with a real stack. */
static int emu(const char *bytes, size_t len, uintptr_t at, struct mv_cpu *c)
{
	return mv_arch_emulate((const uint8_t *)bytes, len, at, c);
}

static void test_emulate(void)
{
	uint64_t stack[4] = { 0, 0, 0, 0x4242 };
	uint64_t slot = 0x9000;
	uintptr_t top = (uintptr_t)&stack[3];
	struct mv_cpu c;
	char ind[6] = { (char)0xff, 0x15 };
	int32_t disp;

	/* call rel32: pushes the return address, jumps */
	c = (struct mv_cpu){ 0, top, 1 };
	CHECK(!emu("\xe8\x10\x00\x00\x00", 5, 0x1000, &c));
	CHECK(c.ip == 0x1015 && c.sp == top - 8 && stack[2] == 0x1005 && c.ax == 1);
	/* CS-prefixed 6-byte call */
	c = (struct mv_cpu){ 0, top, 1 };
	CHECK(!emu("\x2e\xe8\x10\x00\x00\x00", 6, 0x1000, &c));
	CHECK(c.ip == 0x1016 && c.sp == top - 8 && stack[2] == 0x1006);
	/* addr32 call, as the linker relaxes -fno-plt */
	c = (struct mv_cpu){ 0, top, 1 };
	CHECK(!emu("\x67\xe8\x00\x01\x00\x00", 6, 0x1000, &c) && c.ip == 0x1106);
	/* jmp rel32: no push */
	c = (struct mv_cpu){ 0, top, 1 };
	CHECK(!emu("\xe9\xfb\xff\xff\xff", 5, 0x1000, &c) && c.ip == 0x1000 && c.sp == top);
	/* call and jmp through a RIP-relative slot read at trap time */
	disp = (int32_t)((intptr_t)&slot - (intptr_t)(0x1000 + 6));
	if ((intptr_t)disp == (intptr_t)&slot - (intptr_t)(0x1000 + 6)) {
		memcpy(ind + 2, &disp, 4);
		c = (struct mv_cpu){ 0, top, 1 };
		CHECK(!emu(ind, 6, 0x1000, &c) && c.ip == 0x9000 && c.sp == top - 8);
		ind[1] = 0x25;
		c = (struct mv_cpu){ 0, top, 1 };
		CHECK(!emu(ind, 6, 0x1000, &c) && c.ip == 0x9000 && c.sp == top);
	}
	/* the entry NOP and site NOPs: skipped */
	c = (struct mv_cpu){ 0, top, 1 };
	CHECK(!emu("\x0f\x1f\x44\x00\x00", 5, 0x1000, &c) && c.ip == 0x1005 && c.sp == top);
	c = (struct mv_cpu){ 0, top, 1 };
	CHECK(!emu("\x66\x0f\x1f\x44\x00\x00", 6, 0x1000, &c) && c.ip == 0x1006);
	/* inlined constants */
	c = (struct mv_cpu){ 0, top, ~0ull };
	CHECK(!emu("\xb8\x07\x00\x00\x00", 5, 0x1000, &c) && c.ax == 7 && c.ip == 0x1005);
	c = (struct mv_cpu){ 0, top, 0 };
	CHECK(!emu("\x2e\x48\x83\xc8\xff", 5, 0x1000, &c) && c.ax == ~0ull && c.ip == 0x1005);
	/* an inlined empty body at a tail site: ret */
	c = (struct mv_cpu){ 0, top, 1 };
	CHECK(!emu("\xc3\x0f\x1f\x40\x00", 5, 0x1000, &c) && c.ip == 0x4242 && c.sp == top + 8);
	/* anything the runtime never writes */
	c = (struct mv_cpu){ 0, top, 1 };
	CHECK(emu("\x90\x90\x90\x90\x90", 5, 0x1000, &c));
	CHECK(emu("\x6a\x05\x58\x90\x90", 5, 0x1000, &c));
	CHECK(emu("\xe8\x00\x00\x00\x00\x90", 6, 0x1000, &c));
}

static void test_entry(void)
{
	uint8_t b[8];

	CHECK(same(mv_arch_entry_nop, MV_ARCH_ENTRY_LEN, "0f 1f 44 00 00"));
	CHECK(!mv_arch_entry_jump(b, 0x1000, 0x1100) && same(b, 5, "e9 fb 00 00 00"));
	CHECK(!mv_arch_entry_jump(b, 0x1000, 0x1000) && same(b, 5, "e9 fb ff ff ff"));
	CHECK(mv_arch_entry_jump(b, 0x1000, 0x1005 + 0x80000000ull));
}

/* PLT entries, and the plugins' stubs for switches as the linker leaves
 * them; 16 bytes are given, a PLT entry's or a stub's length. */
static void test_trampoline(void)
{
	struct mv_tramp t;

	CHECK(!mv_arch_trampoline(BYTES("\xff\x25\x0a\x00\x00\x00\x68\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x1010);
	CHECK(!mv_arch_trampoline(BYTES("\xf3\x0f\x1e\xfa\xf2\xff\x25\x00\x01\x00\x00\x00\x00\x00\x00\x00"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x110b);
	/* movq sw@GOTPCREL(%rip), %r11; jmp *(%r11) */
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x41\xff\x23\xcc\xcc\xcc\xcc\xcc\xcc"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT2 && t.slot == 0x2000 && t.disp == 0);
	/* leaq sw(%rip), %r11; jmp *(%r11) */
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8d\x1d\xf9\xef\xff\xff\x41\xff\x23\xcc\xcc\xcc\xcc\xcc\xcc"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0);
	/* a member switch 8 and 0x1234 bytes into its object:
	 * movq obj@GOTPCREL(%rip), %r11; jmp *8(%r11) / jmp *0x1234(%r11) */
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x41\xff\x63\x08\xcc\xcc\xcc\xcc\xcc"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT2 && t.slot == 0x2000 && t.disp == 8);
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x41\xff\xa3\x34\x12\x00\x00\xcc\xcc"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT2 && t.slot == 0x2000 && t.disp == 0x1234);
	/* leaq obj(%rip), %r11; jmp *8(%r11) */
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8d\x1d\xf9\x0f\x00\x00\x41\xff\x63\x08\xcc\xcc\xcc\xcc\xcc"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x2008);
	/* movq $sw, %r11; jmp *(%r11) */
	CHECK(!mv_arch_trampoline(BYTES("\x49\xc7\xc3\x40\x40\x40\x00\x41\xff\x23\xcc\xcc\xcc\xcc\xcc\xcc"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x404040);

	/* a kernel's retpoline stub, movq sw(%rip), %r11; jmp __x86_indirect_thunk_r11,
	 * and as the kernel may rewrite its jump: jmp *%r11; lfence; jmp *%r11 */
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\xe9\x00\x01\x00\x00\xcc\xcc\xcc\xcc"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x2000);
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x41\xff\xe3\x66\x90\xcc\xcc\xcc\xcc"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x2000);
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x0f\xae\xe8\x41\xff\xe3\xcc\xcc\xcc"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x2000);
	/* a stub under retpolines or -mindirect-branch-register whose switch
	 * is reached through the GOT (20 bytes read): movq obj@GOTPCREL(%rip),
	 * %r11; movq 8(%r11), %r11 / (%r11) / 0x1234(%r11); then jmp <thunk>
	 * or jmp *%r11; and the linker's leaq obj(%rip), %r11 for the first */
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x4d\x8b\x5b\x08\xe9\x00\x01\x00\x00"
					"\xcc\xcc\xcc\xcc"), 0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT2 && t.slot == 0x2000 && t.disp == 8);
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x4d\x8b\x1b\x41\xff\xe3\xcc\xcc\xcc"
					"\xcc\xcc\xcc\xcc"), 0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT2 && t.slot == 0x2000 && t.disp == 0);
	CHECK(!mv_arch_trampoline(BYTES("\x4c\x8d\x1d\xf9\x0f\x00\x00\x4d\x8b\x9b\x34\x12\x00\x00\xe9\x00"
					"\x01\x00\x00\xcc"), 0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x2000 + 0x1234);
	/* ... not with 16 bytes readable, nor loading through another
	 * register (r10) */
	CHECK(mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x4d\x8b\x5b\x08\xe9\x00\x01\x00\x00"),
				 0x1000, &t));
	CHECK(mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x4d\x8b\x5a\x08\xe9\x00\x01\x00\x00"
				       "\xcc\xcc\xcc\xcc"), 0x1000, &t));
	/* ... but not lfence alone, nor a call */
	CHECK(mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\x0f\xae\xe8\xcc\xcc\xcc\xcc\xcc\xcc"),
				 0x1000, &t));
	CHECK(mv_arch_trampoline(BYTES("\x4c\x8b\x1d\xf9\x0f\x00\x00\xe8\x00\x01\x00\x00\xcc\xcc\xcc\xcc"),
				 0x1000, &t));

	/* another register, or through a register that was not loaded */
	CHECK(mv_arch_trampoline(BYTES("\x4c\x8b\x15\xf9\x0f\x00\x00\x41\xff\x22\xcc\xcc\xcc\xcc\xcc\xcc"),
				 0x1000, &t));
	CHECK(mv_arch_trampoline(BYTES("\x48\x8b\x05\xf9\x0f\x00\x00\x41\xff\x23\xcc\xcc\xcc\xcc\xcc\xcc"),
				 0x1000, &t));
	CHECK(mv_arch_trampoline(BYTES("\xff\x15\x0a\x00\x00\x00\x68\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
				  0x1000, &t));                           /* a call */
	CHECK(mv_arch_trampoline(BYTES("\xff\x25\x0a\x00\x00\x00"), 0x1000, &t));  /* short */
	/* a PLT entry whose displacement looks like jmp *(%r11) at byte 7 */
	CHECK(!mv_arch_trampoline(BYTES("\xf3\x0f\x1e\xfa\xf2\xff\x25\x41\xff\x23\x00\x00\x00\x00\x00\x00"),
				  0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x1000 + 11 + 0x23ff41);
}

static int forty_two(void)
{
	return 42;
}

/* A far-call gate: the bytes, read back as the trampoline it is, and run
 * from a page of its own. */
static void test_gate(void)
{
	uint8_t b[MV_ARCH_GATE_LEN];
	struct mv_tramp t;
	uintptr_t target = 0x123456789abcull, slot;

	mv_arch_gate(b, target);
	CHECK(same(b, 16, "ff 25 02 00 00 00 cc cc bc 9a 78 56 34 12 00 00"));
	CHECK(!mv_arch_trampoline(b, sizeof b, 0x1000, &t));
	CHECK(t.kind == MV_TRAMP_SLOT && t.slot == 0x1008);
	memcpy(&slot, b + (t.slot - 0x1000), 8);
	CHECK(slot == target);

	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(0, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	mv_arch_gate(m + 16, (uintptr_t)forty_two);
	CHECK(!mprotect(m, pg, PROT_READ | PROT_EXEC));
	CHECK(((int (*)(void))(m + 16))() == 42);
	munmap(m, pg);
}

int main(void)
{
	test_gate();
	test_trampoline();
	test_decode();
	test_branch();
	test_classify();
	test_classify_edge();
	test_inline();
	test_roundtrip();
	test_entry();
	test_emulate();
	return 0;
}
