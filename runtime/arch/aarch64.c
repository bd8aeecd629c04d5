/* SPDX-License-Identifier: MIT */
/*
 * AArch64 instruction encoding for call sites, entry patch areas and the
 * tiny variant bodies we inline, the trampolines a call may pass through,
 * and the emulation of what patch areas hold for the trap handler.
 *
 * Every patch area is one 32-bit instruction: bl or b at a site (a call
 * through a function-pointer switch is a bl to the plugin's stub), nop or
 * b at an entry.  What the runtime writes there is b, bl, nop or brk,
 * which the architecture lets one thread change while others execute it
 * (Arm ARM, "Concurrent modification and execution of instructions":
 * the executing thread sees the old or the new instruction), and an
 * inlined constant (movz/movn) or an inlined empty tail call (ret), which
 * it does not: a batch that changes one is written while every other
 * thread is parked (mv_arch_live_safe decides; the protocol is in
 * runtime/platform/linux-user/poke.c and stop.c).
 */

#include "../arch.h"

enum {
	NOP = 0xd503201f,
	RET = 0xd65f03c0,            /* ret x30 */
	BTI_C = 0xd503245f,
	BTI_JC = 0xd50324df,
	PACIASP = 0xd503233f,
	PACIBSP = 0xd503237f,
	AUTIA1716 = 0xd503219f,
	AUTIB1716 = 0xd50321df,
	OP_BL = MV_A64_BL,
	OP_B = MV_A64_B,
	MASK_BRANCH = 0xfc000000,
	MOVZ_X = 0xd2800000,         /* movz xd, #imm16, lsl #16*hw */
	MOVN_X = 0x92800000,
	MOVZ_W = 0x52800000,
	MOVN_W = 0x12800000,
	MASK_MOVE = 0xff800000,      /* keeps sf, opc and the fixed bits */
	MOV_W0_WZR = 0x2a1f03e0,     /* orr w0, wzr, wzr */
	MOV_X0_XZR = 0xaa1f03e0,
	X16 = 16, X17 = 17,
	LDR_X16_LITERAL_8 = 0x58000050,  /* ldr x16, .+8 */
	BR_X16 = 0xd61f0200,
};

const uint8_t mv_arch_entry_nop[MV_ARCH_ENTRY_LEN] = { 0x1f, 0x20, 0x03, 0xd5 };

static uint32_t get(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void put(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* The target of b/bl at addr. */
static uintptr_t branch_target(uint32_t insn, uintptr_t addr)
{
	int64_t off = (int64_t)((uint64_t)(insn & 0x3ffffff) << 38) >> 36;
	return addr + off;
}

int mv_arch_decode(const uint8_t *code, size_t avail, uintptr_t addr,
		   struct mv_insn *insn)
{
	uint32_t i;

	if (avail < 4 || (addr & 3))
		return -1;
	i = get(code);
	if ((i & MASK_BRANCH) != OP_BL && (i & MASK_BRANCH) != OP_B)
		return -1;
	insn->len = 4;
	insn->is_jmp = (i & MASK_BRANCH) == OP_B;
	insn->indirect = 0;
	insn->ref = branch_target(i, addr);
	return 0;
}

int mv_arch_padding(const uint8_t *code, size_t len)
{
	size_t i = 0;

	if (len % 4)
		return 0;
	if (len >= 8 && get(code) == (OP_B | (uint32_t)(len / 4)))
		i = 4;                  /* b .+len, over NOPs */
	for (; i < len; i += 4)
		if (get(code + i) != NOP)
			return 0;
	return 1;
}

/* ldr x16, .+8; br x16; the target's address.  x16 (IP0) is what the
 * procedure call standard lets veneers clobber, and br x16 may land on
 * the target's bti c. */
void mv_arch_gate(uint8_t *buf, uintptr_t target)
{
	put(buf, LDR_X16_LITERAL_8);
	put(buf + 4, BR_X16);
	memcpy(buf + 8, &target, 8);
}

/* The value a movz/movn of x0 or w0, or a mov from the zero register,
 * leaves in x0.  Returns 0, or -1 for another instruction. */
static int move_value(uint32_t i, uint64_t *v)
{
	uint64_t imm = (i >> 5) & 0xffff;
	unsigned hw = (i >> 21) & 3;

	if (i == MOV_W0_WZR || i == MOV_X0_XZR) {
		*v = 0;
		return 0;
	}
	if ((i & 0x1f) != 0)
		return -1;
	switch (i & MASK_MOVE) {
	case MOVZ_X: *v = imm << 16 * hw; return 0;
	case MOVN_X: *v = ~(imm << 16 * hw); return 0;
	case MOVZ_W: if (hw > 1) return -1; *v = imm << 16 * hw; return 0;
	case MOVN_W: if (hw > 1) return -1; *v = (uint32_t)~(imm << 16 * hw); return 0;
	}
	return -1;
}

/* A single instruction that leaves exactly v in x0, if there is one. */
static int encode_move(uint64_t v, uint32_t *insn)
{
	for (unsigned hw = 0; hw < 4; hw++) {
		unsigned s = 16 * hw;
		if ((v & ~(0xffffULL << s)) == 0) {
			*insn = MOVZ_X | hw << 21 | (uint32_t)((v >> s) & 0xffff) << 5;
			return 0;
		}
		if ((~v & ~(0xffffULL << s)) == 0) {
			*insn = MOVN_X | hw << 21 | (uint32_t)((~v >> s) & 0xffff) << 5;
			return 0;
		}
	}
	/* movn w0 zero-extends: 0x00000000_ffffxxxx and 0x00000000_xxxxffff */
	for (unsigned hw = 0; hw < 2; hw++) {
		unsigned s = 16 * hw;
		uint32_t n = ~(uint32_t)v;
		if ((v >> 32) == 0 && (n & ~(0xffffU << s)) == 0) {
			*insn = MOVN_W | hw << 21 | ((n >> s) & 0xffff) << 5;
			return 0;
		}
	}
	return -1;
}

void mv_arch_classify(const uint8_t *code, struct mv_body *body)
{
	uint32_t i = get(code);
	uint64_t v;

	body->kind = MV_BODY_OTHER;
	body->value = 0;
	if (i == BTI_C || i == BTI_JC) {
		code += 4;
		i = get(code);
	}
	if (i == RET) {
		body->kind = MV_BODY_EMPTY;
		return;
	}
	if (!move_value(i, &v) && get(code + 4) == RET) {
		body->kind = MV_BODY_CONST;
		body->value = v;
	}
}

/* At a tail call (b) only an empty body is inlined: a ret, which returns
 * to the caller's caller as the body would have.  A constant would need
 * a second instruction. */
int mv_arch_inline(uint8_t *buf, const struct mv_insn *insn,
		   const struct mv_body *body)
{
	uint32_t i;

	if (insn->len != 4)
		return -1;
	if (body->kind == MV_BODY_EMPTY)
		i = insn->is_jmp ? RET : NOP;
	else if (insn->is_jmp || body->kind != MV_BODY_CONST || encode_move(body->value, &i))
		return -1;
	put(buf, i);
	return 0;
}

int mv_arch_entry_jump(uint8_t *buf, uintptr_t entry, uintptr_t target)
{
	uint32_t i;

	if (mv_a64_branch(OP_B, entry, target, &i))
		return -1;
	put(buf, i);
	return 0;
}

static int concurrent_ok(uint32_t i)
{
	return i == NOP || (i & MASK_BRANCH) == OP_B || (i & MASK_BRANCH) == OP_BL ||
	       i == get((const uint8_t *)MV_ARCH_BREAKPOINT);
}

/* The protocol goes old -> brk -> new: each step must stay within the
 * instructions that may be changed concurrently. */
int mv_arch_live_safe(const uint8_t *old, const uint8_t *new, size_t len)
{
	return len == 4 && concurrent_ok(get(old)) && concurrent_ok(get(new));
}

int mv_arch_emulate(const uint8_t *insn, size_t len, uintptr_t addr,
		    struct mv_cpu *cpu)
{
	uint32_t i;
	uint64_t v;

	if (len != 4)
		return -1;
	i = get(insn);
	if (i == NOP) {
		cpu->ip = addr + 4;
	} else if ((i & MASK_BRANCH) == OP_BL) {
		cpu->lr = addr + 4;
		cpu->ip = branch_target(i, addr);
	} else if ((i & MASK_BRANCH) == OP_B) {
		cpu->ip = branch_target(i, addr);
	} else if (i == RET) {
		cpu->ip = cpu->lr;
	} else if (!move_value(i, &v)) {
		cpu->x0 = v;
		cpu->ip = addr + 4;
	} else {
		return -1;
	}
	return 0;
}

/* Fields of the instructions trampolines are made of. */
static int is_adrp(uint32_t i, unsigned rd, uintptr_t addr, uintptr_t *page)
{
	int64_t imm;

	if ((i & 0x9f00001f) != (0x90000000 | rd))
		return 0;
	imm = (int64_t)((uint64_t)(((i >> 5) & 0x7ffff) << 2 | ((i >> 29) & 3)) << 43) >> 31;
	*page = (addr & ~(uintptr_t)0xfff) + imm;
	return 1;
}

/* ldr xt, [xn, #imm] (64-bit, unsigned offset) */
static int is_ldr(uint32_t i, unsigned rt, unsigned rn, uintptr_t *off)
{
	if ((i & 0xffc003ff) != (0xf9400000 | rn << 5 | rt))
		return 0;
	*off = ((i >> 10) & 0xfff) * 8;
	return 1;
}

/* add xd, xn, #imm (unshifted) */
static int is_add(uint32_t i, unsigned rd, unsigned rn, uintptr_t *off)
{
	if ((i & 0xffc003ff) != (0x91000000 | rn << 5 | rd))
		return 0;
	*off = (i >> 10) & 0xfff;
	return 1;
}

static int is_br(uint32_t i, unsigned rn)
{
	return i == (0xd61f0000 | rn << 5);
}

/*
 * The trampolines that may stand between a bl/b and its callee:
 *   PLT entry (GNU ld), optionally with bti c and autia1716/autib1716:
 *       adrp x16, P; ldr x17, [x16, #o]; add x16, x16, #o; br x17
 *   the plugin's stub for a function-pointer switch sw at byte d of its
 *   object obj (d = 0 for a global switch):
 *       adrp x16, obj+d; ldr x16, [x16, #o]; br x16
 *       adrp x16, GOT(obj); ldr x16, [x16, #o]; ldr x16, [x16, #d]; br x16
 *       adrp x16, obj; add x16, x16, #o; ldr x16, [x16, #d]; br x16   (lld's relaxation)
 *     each optionally after a bti c
 *   GNU ld's veneers for far targets:
 *       adrp x16, T; add x16, x16, #o; br x16
 *       ldr x16, 1f; br x16; 1: .xword T
 *       ldr x16, 1f; adr x17, 1f; add x16, x16, x17; br x16; 1: .xword T-1b
 */
int mv_arch_trampoline(const uint8_t *code, size_t avail, uintptr_t addr,
		       struct mv_tramp *t)
{
	uint32_t w[MV_ARCH_TRAMP_MAX / 4];
	size_t n = avail / 4 < MV_ARCH_TRAMP_MAX / 4 ? avail / 4 : MV_ARCH_TRAMP_MAX / 4;
	uintptr_t page, off, off2;
	size_t k = 0;

	for (size_t j = 0; j < n; j++)
		w[j] = get(code + 4 * j);
	for (size_t j = n; j < MV_ARCH_TRAMP_MAX / 4; j++)
		w[j] = 0;
	if (n < 2)
		return -1;
	if (w[0] == BTI_C || w[0] == BTI_JC)
		k = 1;
	if (k + 1 < n && w[k] == LDR_X16_LITERAL_8 && is_br(w[k + 1], X16) && k + 3 < n) {
		/* ldr x16, .+8; br x16; .xword T */
		t->kind = MV_TRAMP_JUMP;
		t->target = (uintptr_t)w[k + 2] | (uintptr_t)w[k + 3] << 32;
		return 0;
	}
	if (k + 5 < n && w[k] == 0x58000090 && w[k + 1] == 0x10000071 &&
	    w[k + 2] == 0x8b110210 && is_br(w[k + 3], X16)) {
		/* ldr x16, .+16; adr x17, .+12; add x16, x16, x17; br x16 */
		uintptr_t lit = addr + 4 * (k + 4);
		t->kind = MV_TRAMP_JUMP;
		t->target = lit + ((uintptr_t)w[k + 4] | (uintptr_t)w[k + 5] << 32);
		return 0;
	}
	if (k + 2 >= n || !is_adrp(w[k], X16, addr + 4 * k, &page))
		return -1;
	if (is_ldr(w[k + 1], X17, X16, &off) && k + 3 < n &&
	    is_add(w[k + 2], X16, X16, &off2) && off2 == off) {
		size_t b = k + 3;
		if (b < n && (w[b] == AUTIA1716 || w[b] == AUTIB1716))
			b++;
		if (b < n && is_br(w[b], X17)) {
			t->kind = MV_TRAMP_SLOT;
			t->slot = page + off;
			return 0;
		}
		return -1;
	}
	if (is_ldr(w[k + 1], X16, X16, &off)) {
		if (is_br(w[k + 2], X16)) {
			t->kind = MV_TRAMP_SLOT;
			t->slot = page + off;
			return 0;
		}
		if (k + 3 < n && is_ldr(w[k + 2], X16, X16, &off2) &&
		    is_br(w[k + 3], X16)) {
			t->kind = MV_TRAMP_SLOT2;
			t->slot = page + off;
			t->disp = off2;
			return 0;
		}
		return -1;
	}
	if (is_add(w[k + 1], X16, X16, &off) && is_br(w[k + 2], X16)) {
		t->kind = MV_TRAMP_JUMP;
		t->target = page + off;
		return 0;
	}
	if (is_add(w[k + 1], X16, X16, &off) && k + 3 < n &&
	    is_ldr(w[k + 2], X16, X16, &off2) && is_br(w[k + 3], X16)) {
		/* the GOT stub as lld relaxes it for a switch that binds locally */
		t->kind = MV_TRAMP_SLOT;
		t->slot = page + off + off2;
		return 0;
	}
	return -1;
}

/*
 * Copies of variants.  An adrp (MV_RELOC_AARCH64_ADRP) computes a 4 KiB
 * page relative to its own page, so its immediate is recomputed for the
 * page the copy lies in: the page it named stays the same.  The :lo12:
 * add or load after it needs nothing.  After a copy at a call site: a nop
 * up to the region's end, or a b there when more than one would be
 * needed.  A tail call's copy ends with a ret.
 */
int mv_arch_fits(const struct mv_insn *insn, size_t len, size_t region_len)
{
	return len % 4 == 0 && len + (insn->is_jmp ? 4 : 0) <= region_len;
}

enum { OP_ADRP = 0x90000000, MASK_ADR = 0x9f000000 };

int mv_arch_relocate(uint8_t *code, size_t len, const struct mv_desc_reloc *r,
		     uintptr_t from, uintptr_t to)
{
	uint32_t i;
	int64_t imm, page, pages;

	if (r->kind != MV_RELOC_AARCH64_ADRP || r->offset % 4 || (size_t)r->offset + 4 > len)
		return -1;
	i = get(code + r->offset);
	if ((i & MASK_ADR) != OP_ADRP)
		return -1;
	imm = ((int64_t)(((i >> 5) & 0x7ffff) << 2 | ((i >> 29) & 3)) << 43) >> 43;
	page = (int64_t)((from + r->offset) & ~(uintptr_t)0xfff) + imm * 4096;
	pages = (page - (int64_t)((to + r->offset) & ~(uintptr_t)0xfff)) / 4096;
	if (pages < -(1LL << 20) || pages >= (1LL << 20))
		return -1;
	i &= ~(0x7ffffu << 5 | 3u << 29);
	i |= ((uint32_t)pages & 3) << 29 | (((uint32_t)pages >> 2) & 0x7ffff) << 5;
	put(code + r->offset, i);
	return 0;
}

void mv_arch_finish_copy(uint8_t *buf, size_t len, size_t region_len,
			 const struct mv_insn *insn)
{
	size_t n = region_len - len;

	for (size_t k = len; k < region_len; k += 4)
		put(buf + k, NOP);
	if (insn->is_jmp)
		put(buf + len, RET);
	else if (n > 4)
		put(buf + len, OP_B | (uint32_t)(n / 4));
}
