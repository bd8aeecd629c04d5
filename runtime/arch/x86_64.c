/* SPDX-License-Identifier: MIT */
/*
 * x86-64 instruction encoding for call sites, entry patch areas and the
 * tiny variant bodies we inline, and the emulation of what patch areas
 * hold for the trap handler.  The protocol that writes them is
 * runtime/platform/linux-user/poke.c in a process, the kernel's own
 * text_poke_bp in the kernel: int3 over the first byte either way.
 */

#include "../arch.h"

enum {
	OP_CALL = MV_X86_CALL,
	OP_JMP = MV_X86_JMP,
	OP_JMP8 = 0xeb,       /* jmp rel8 */
	OP_GRP5 = 0xff,       /* with the ModRM bytes below: through *disp32(%rip) */
	MODRM_CALL_RIP = 0x15,
	MODRM_JMP_RIP = 0x25,
	PFX_CS = MV_X86_CS,
	PFX_ADDR32 = 0x67,
	PFX_REP = 0xf3,
	OP_RET = 0xc3,
};

const uint8_t mv_arch_entry_nop[MV_ARCH_ENTRY_LEN] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

/* The recommended multi-byte NOPs, indexed by length; a site is padded
 * with one of them so that no instruction boundary appears inside it. */
static const uint8_t nops[MV_ARCH_SITE_MAX + 1][MV_ARCH_SITE_MAX] = {
	{ 0 },
	{ 0x90 },
	{ 0x66, 0x90 },
	{ 0x0f, 0x1f, 0x00 },
	{ 0x0f, 0x1f, 0x40, 0x00 },
	{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
};

/*
 * Loads of a constant into rax (or al), as variant bodies contain them,
 * each followed by a return.  Only for classifying bodies: what goes into
 * a site is chosen by inline_const().
 */
static const struct form {
	uint8_t op[4], n_op;  /* bytes before the immediate */
	uint8_t imm;          /* immediate size in bytes */
	uint8_t sext;         /* the immediate is sign-extended to 64 bits */
	uint8_t tail;         /* a byte after the immediate, 0 if none */
	uint8_t kind;         /* MV_BODY_CONST or MV_BODY_CONST8 */
	uint64_t value;       /* the value loaded when imm == 0 */
} forms[] = {
	{ { 0x31, 0xc0 }, 2, 0, 0, 0, MV_BODY_CONST, 0 },                  /* xor %eax,%eax */
	{ { 0x48, 0x83, 0xc8, 0xff }, 4, 0, 0, 0, MV_BODY_CONST, -1 },     /* or $-1,%rax */
	{ { 0xb8 }, 1, 4, 0, 0, MV_BODY_CONST, 0 },                        /* mov $imm32,%eax */
	{ { 0x6a }, 1, 1, 1, 0x58, MV_BODY_CONST, 0 },                     /* push $imm8; pop %rax */
	{ { 0x83, 0xc8, 0xff }, 3, 0, 0, 0, MV_BODY_CONST, 0xffffffff },   /* or $-1,%eax */
	{ { 0x48, 0xc7, 0xc0 }, 3, 4, 1, 0, MV_BODY_CONST, 0 },            /* mov $simm32,%rax */
	{ { 0x48, 0xb8 }, 2, 8, 0, 0, MV_BODY_CONST, 0 },                  /* movabs $imm64,%rax */
	{ { 0x33, 0xc0 }, 2, 0, 0, 0, MV_BODY_CONST, 0 },
	{ { 0x48, 0x31, 0xc0 }, 3, 0, 0, 0, MV_BODY_CONST, 0 },
	{ { 0x48, 0x33, 0xc0 }, 3, 0, 0, 0, MV_BODY_CONST, 0 },
	{ { 0xb0 }, 1, 1, 0, 0, MV_BODY_CONST8, 0 },                         /* mov $imm8,%al */
};

static int32_t get32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

/* Compares byte by byte so that nothing past a mismatch is read. */
static int match(const uint8_t *p, const uint8_t *pat, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pat[i])
			return 0;
	return 1;
}

static size_t ret_len(const uint8_t *p)
{
	if (p[0] == OP_RET)
		return 1;
	if (p[0] == PFX_REP && p[1] == OP_RET)
		return 2;
	return 0;
}

static uint64_t extend(uint64_t v, unsigned size, int sext)
{
	unsigned shift = 64 - 8 * size;

	if (size == 8)
		return v;
	v = v << shift;
	return sext ? (uint64_t)((int64_t)v >> shift) : v >> shift;
}

static uint64_t get_imm(const uint8_t *p, unsigned size, int sext)
{
	uint64_t v = 0;

	for (unsigned i = size; i--;)
		v = v << 8 | p[i];
	return extend(v, size, sext);
}

static void fill_nop(uint8_t *p, size_t n)
{
	memcpy(p, nops[n], n);
}

int mv_arch_decode(const uint8_t *code, size_t avail, uintptr_t addr,
		   struct mv_insn *insn)
{
	if (avail >= 5 && (code[0] == OP_CALL || code[0] == OP_JMP)) {
		insn->len = 5;
		insn->is_jmp = code[0] == OP_JMP;
		insn->indirect = 0;
		insn->ref = addr + 5 + (intptr_t)get32(code + 1);
		return 0;
	}
	/* The linker relaxes a -fno-plt call through the GOT to a function it
	 * finds local into an addr32-prefixed direct call of the same length. */
	if (avail >= 6 && code[0] == PFX_ADDR32 && code[1] == OP_CALL) {
		insn->len = 6;
		insn->is_jmp = 0;
		insn->indirect = 0;
		insn->ref = addr + 6 + (intptr_t)get32(code + 2);
		return 0;
	}
	if (avail >= 6 && code[0] == OP_GRP5 &&
	    (code[1] == MODRM_CALL_RIP || code[1] == MODRM_JMP_RIP)) {
		insn->len = 6;
		insn->is_jmp = code[1] == MODRM_JMP_RIP;
		insn->indirect = 1;
		insn->ref = addr + 6 + (intptr_t)get32(code + 2);
		return 0;
	}
	return -1;
}

/*
 * A 6-byte site gets a CS segment prefix (ignored on near branches in
 * 64-bit mode) rather than a 5-byte branch plus a NOP: it stays a single
 * instruction, so no thread can ever be stopped in the middle of the site.
 */
/* The length of the NOP at p (at most avail bytes), or 0: operand-size
 * and CS prefixes, then 90 (after a 66) or 0f 1f with a ModRM operand
 * whose SIB and displacement bytes are zero, as assemblers emit them. */
static size_t nop_len(const uint8_t *p, size_t avail)
{
	static const uint8_t extra[] = { [0x00] = 0, [0x40] = 1, [0x44] = 2,
					 [0x80] = 4, [0x84] = 5 };
	size_t n = 0;

	while (n < avail && n < 14 && (p[n] == 0x66 || p[n] == PFX_CS))
		n++;
	if (n < avail && p[n] == 0x90)
		return n == 0 || p[n - 1] == 0x66 ? n + 1 : 0;
	if (n + 3 > avail || p[n] != 0x0f || p[n + 1] != 0x1f)
		return 0;
	uint8_t modrm = p[n + 2];
	if (modrm != 0x00 && modrm != 0x40 && modrm != 0x44 && modrm != 0x80 &&
	    modrm != 0x84)
		return 0;
	size_t len = n + 3 + extra[modrm];
	if (len > avail || len > 15)
		return 0;
	for (size_t i = n + 3; i < len; i++)
		if (p[i])
			return 0;
	return len;
}

int mv_arch_padding(const uint8_t *code, size_t len)
{
	size_t i = 0, n;

	if (len >= 2 && code[0] == OP_JMP8 && code[1] == len - 2)
		i = 2;                  /* jmp .+len, over NOPs */
	for (; i < len; i += n)
		if (!(n = nop_len(code + i, len - i)))
			return 0;
	return 1;
}

/* jmp *2(%rip) over two int3s to the target's address: the return
 * address a call pushed stays for the target. */
void mv_arch_gate(uint8_t *buf, uintptr_t target)
{
	static const uint8_t jmp_slot[8] = { 0xff, 0x25, 0x02, 0, 0, 0, 0xcc, 0xcc };

	memcpy(buf, jmp_slot, sizeof jmp_slot);
	memcpy(buf + 8, &target, 8);
}

void mv_arch_classify(const uint8_t *code, struct mv_body *body)
{
	const uint8_t *p = code;

	body->kind = MV_BODY_OTHER;
	body->value = 0;
	if (match(p, endbr64, sizeof endbr64))
		p += sizeof endbr64;
	if (ret_len(p)) {
		body->kind = MV_BODY_EMPTY;
		return;
	}
	for (const struct form *f = forms; f < forms + sizeof forms / sizeof *forms; f++) {
		const uint8_t *q = p + f->n_op;
		uint64_t v = f->value;

		if (!match(p, f->op, f->n_op))
			continue;
		if (f->imm)
			v = get_imm(q, f->imm, f->sext);
		q += f->imm;
		if (f->tail && *q++ != f->tail)
			continue;
		if (!ret_len(q))
			continue;
		body->kind = f->kind;
		body->value = v;
		return;
	}
}

/*
 * An inlined body must be ONE instruction that fills the site, so that no
 * thread can ever be stopped inside the site between two of its
 * instructions: when the site is rewritten later, such a thread would
 * resume in the middle of the new instruction.  Padding is done with CS
 * segment prefixes (ignored in 64-bit mode), at most one, since repeating
 * a prefix of the same group is not architecturally defined.
 *
 * The value only needs to match the body's in the bits the caller may
 * use: a body that sets only al leaves the rest of rax undefined to the
 * caller, so zeroing it is as good.
 */
static int inline_const(uint8_t *buf, size_t len, const struct mv_body *body)
{
	uint64_t v = body->kind == MV_BODY_CONST8 ? (uint8_t)body->value : body->value;
	size_t n = v <= 0xffffffffu ? 5 : v == UINT64_MAX ? 4 : 0;

	if (!n || len < n || len - n > 1)
		return -1;
	if (len > n)
		*buf++ = PFX_CS;
	if (n == 5) {
		buf[0] = 0xb8;                          /* mov $imm32,%eax */
		put32(buf + 1, (int32_t)(uint32_t)v);
	} else {
		memcpy(buf, "\x48\x83\xc8\xff", 4);    /* or $-1,%rax */
	}
	return 0;
}

/* At a tail jmp site only an empty body can be inlined: a lone ret, which
 * returns to the caller's caller as the jumped-to body would have.  A
 * constant would need a second instruction before the ret. */
int mv_arch_inline(uint8_t *buf, const struct mv_insn *insn,
		   const struct mv_body *body)
{
	if (insn->len > MV_ARCH_SITE_MAX || insn->len < 5)
		return -1;
	if (body->kind == MV_BODY_EMPTY) {
		size_t n = 0;
		if (insn->is_jmp)
			buf[n++] = OP_RET;
		fill_nop(buf + n, insn->len - n);
		return 0;
	}
	if (insn->is_jmp || (body->kind != MV_BODY_CONST && body->kind != MV_BODY_CONST8))
		return -1;
	return inline_const(buf, insn->len, body);
}

int mv_arch_entry_jump(uint8_t *buf, uintptr_t entry, uintptr_t target)
{
	int32_t rel;

	if (mv_x86_rel32(entry + MV_ARCH_ENTRY_LEN, target, &rel))
		return -1;
	buf[0] = OP_JMP;
	put32(buf + 1, rel);
	return 0;
}

/*
 * Only what patch areas hold: direct and memory-indirect calls and jumps
 * (with our CS or the linker's addr32 prefix), the entry NOP and the
 * site NOPs, the inlined constants, and an inlined empty body's ret.
 */
int mv_arch_emulate(const uint8_t *insn, size_t len, uintptr_t addr,
		    struct mv_cpu *cpu)
{
	const uint8_t *p = insn, *end = insn + len;
	uintptr_t next = addr + len, target;
	int call;

	if (len <= MV_ARCH_SITE_MAX && match(insn, nops[len], len)) {
		cpu->ip = next;
		return 0;
	}
	while (p < end && (*p == PFX_CS || *p == PFX_ADDR32))
		p++;
	if (p == end)
		return -1;
	switch (*p) {
	case OP_CALL:
	case OP_JMP:
		if (end - p != 5)
			return -1;
		call = *p == OP_CALL;
		target = next + (intptr_t)get32(p + 1);
		break;
	case OP_GRP5:
		if (end - p != 6 || (p[1] != MODRM_CALL_RIP && p[1] != MODRM_JMP_RIP))
			return -1;
		call = p[1] == MODRM_CALL_RIP;
		memcpy(&target, (const void *)(next + (intptr_t)get32(p + 2)), sizeof target);
		break;
	case 0xb8:                                      /* mov $imm32,%eax */
		if (end - p != 5)
			return -1;
		cpu->ax = (uint32_t)get32(p + 1);
		cpu->ip = next;
		return 0;
	case 0x48:                                      /* or $-1,%rax */
		if (end - p != 4 || !match(p, (const uint8_t *)"\x48\x83\xc8\xff", 4))
			return -1;
		cpu->ax = UINT64_MAX;
		cpu->ip = next;
		return 0;
	case OP_RET:                                    /* the rest is padding */
		memcpy(&cpu->ip, (const void *)(uintptr_t)cpu->sp, sizeof cpu->ip);
		cpu->sp += 8;
		return 0;
	default:
		return -1;
	}
	if (call) {
		cpu->sp -= 8;
		memcpy((void *)(uintptr_t)cpu->sp, &next, sizeof next);
	}
	cpu->ip = target;
	return 0;
}

/* jmp *disp(%r11), with no, an 8-bit or a 32-bit displacement */
static int is_jmp_r11(const uint8_t *p, uintptr_t *disp)
{
	if (p[0] != 0x41 || p[1] != OP_GRP5)
		return 0;
	switch (p[2]) {
	case 0x23:
		*disp = 0;
		return 1;
	case 0x63:
		*disp = (uintptr_t)(intptr_t)(int8_t)p[3];
		return 1;
	case 0xa3:
		*disp = (uintptr_t)(intptr_t)get32(p + 3);
		return 1;
	}
	return 0;
}

/* A jump to the address in %r11: a jmp rel32 to a retpoline thunk (the
 * kernel's __x86_indirect_thunk_r11, or the one a user-space stub has
 * after it), jmp *%r11 (-mindirect-branch-register), or, as the kernel's
 * retpoline patching may leave it (arch/x86/kernel/alternative.c,
 * apply_retpolines), lfence; jmp *%r11.  The thunk's address is not
 * known here; what makes the stub the switch's is that it loads the
 * switch itself (via_trampoline() in site.c compares the address it
 * loads with the switch's). */
static int is_jmp_to_r11(const uint8_t *p)
{
	static const uint8_t jmp_r11[] = { 0x41, OP_GRP5, 0xe3 },
			     lfence[] = { 0x0f, 0xae, 0xe8 };

	return p[0] == OP_JMP || match(p, jmp_r11, 3) ||
	       (match(p, lfence, 3) && match(p + 3, jmp_r11, 3));
}

/* movq d(%r11), %r11: *disp and *len, or 0. */
static int is_load_r11(const uint8_t *p, uintptr_t *disp, size_t *len)
{
	if (p[0] != 0x4d || p[1] != 0x8b)
		return 0;
	switch (p[2]) {
	case 0x1b:
		*disp = 0, *len = 3;
		return 1;
	case 0x5b:
		*disp = (uintptr_t)(intptr_t)(int8_t)p[3], *len = 4;
		return 1;
	case 0x9b:
		*disp = (uintptr_t)(intptr_t)get32(p + 3), *len = 7;
		return 1;
	}
	return 0;
}

/*
 * The trampolines a direct call may reach on x86-64:
 *   a PLT entry as the GNU linker writes it: jmp *slot(%rip), optionally
 *   after endbr64 (.plt.sec with IBT) and with a bnd prefix (MPX);
 *   the plugin's stub for a function-pointer switch sw at byte d of its
 *   object obj (d = 0 for a global switch): jmp *obj+d(%rip), or for an
 *   object in another module
 *       movq obj@GOTPCREL(%rip), %r11; jmp *d(%r11)
 *   which the linker relaxes, when obj binds locally, to
 *       leaq obj(%rip), %r11; jmp *d(%r11)    or    movq $obj, %r11; jmp *d(%r11)
 *   and, called from code with retpolines or -mindirect-branch-register,
 *       movq obj+d(%rip), %r11; <jump to %r11>
 *       movq obj@GOTPCREL(%rip), %r11; movq d(%r11), %r11; <jump to %r11>
 *   (is_jmp_to_r11; the second relaxed as above).
 */
static const uint8_t mov_got_r11[] = { 0x4c, 0x8b, 0x1d },
		     lea_r11[] = { 0x4c, 0x8d, 0x1d },
		     mov_imm_r11[] = { 0x49, 0xc7, 0xc3 };

/* p loads an object's address into r11, as the assembler wrote it
 * (movq obj@GOTPCREL(%rip), %r11: the GOT slot holds it) or as the
 * linker relaxed it (leaq obj(%rip), %r11 or movq $obj, %r11), and what
 * is d bytes into the object is where the stub jumps. */
static int object_slot(const uint8_t *p, uintptr_t addr, uintptr_t d, struct mv_tramp *t)
{
	uintptr_t rip_target = addr + 7 + (intptr_t)get32(p + 3);

	if (match(p, mov_got_r11, 3)) {
		t->kind = MV_TRAMP_SLOT2;
		t->slot = rip_target;
		t->disp = d;
		return 0;
	}
	if (match(p, lea_r11, 3) || match(p, mov_imm_r11, 3)) {
		t->kind = MV_TRAMP_SLOT;
		t->slot = d + (p[1] == 0x8d ? rip_target : (uintptr_t)(intptr_t)get32(p + 3));
		return 0;
	}
	return -1;
}

int mv_arch_trampoline(const uint8_t *code, size_t avail, uintptr_t addr,
		       struct mv_tramp *t)
{
	const uint8_t *p = code;
	uintptr_t disp;
	size_t len;

	if (avail < 14)         /* the longest but the two-load form */
		return -1;
	if (avail >= 7 + 7 + 6 && is_load_r11(p + 7, &disp, &len) && is_jmp_to_r11(p + 7 + len) &&
	    !object_slot(p, addr, disp, t))
		return 0;
	/* otherwise those bytes may be a PLT entry's displacement */
	if (is_jmp_r11(p + 7, &disp) && !object_slot(p, addr, disp, t))
		return 0;
	if (match(p, mov_got_r11, 3) && is_jmp_to_r11(p + 7)) {
		t->kind = MV_TRAMP_SLOT;
		t->slot = addr + 7 + (intptr_t)get32(p + 3);
		return 0;
	}
	if (match(p, endbr64, sizeof endbr64))
		p += sizeof endbr64;
	if (*p == 0xf2)                                 /* bnd */
		p++;
	if (p[0] != OP_GRP5 || p[1] != MODRM_JMP_RIP)
		return -1;
	t->kind = MV_TRAMP_SLOT;
	t->slot = addr + (uintptr_t)(p + 6 - code) + (intptr_t)get32(p + 2);
	return 0;
}

/* int3 over the first byte makes every change safe (poke.c). */
int mv_arch_live_safe(const uint8_t *old, const uint8_t *new, size_t len)
{
	(void)old, (void)new, (void)len;
	return 1;
}

/*
 * Copies of variants.  A field MV_RELOC_X86_RIP32 is the disp32 right
 * after a ModRM byte of mod 00 and r/m 101 (%rip-relative); it is
 * relative to the end of its instruction, which moves with the copy, so
 * the distance the copy moves is added to it.  After a copy at a call
 * site: one NOP up to the region's end, or a short jump there when more
 * than one NOP would be needed.  A tail call's copy ends with a return
 * (the bytes after it never run).
 */
int mv_arch_fits(const struct mv_insn *insn, size_t len, size_t region_len)
{
	return len + (insn->is_jmp ? 1 : 0) <= region_len;
}

int mv_arch_relocate(uint8_t *code, size_t len, const struct mv_desc_reloc *r,
		     uintptr_t from, uintptr_t to)
{
	int64_t d;

	if (r->kind != MV_RELOC_X86_RIP32 || r->offset < 2 || (size_t)r->offset + 4 > len ||
	    (code[r->offset - 1] & 0xc7) != 0x05)
		return -1;
	d = (int64_t)get32(code + r->offset) + (int64_t)(from - to);
	if (d != (int32_t)d)
		return -1;
	put32(code + r->offset, (int32_t)d);
	return 0;
}

/* The multi-byte NOPs longer than a call site, indexed by length - 7. */
static const uint8_t long_nops[4][10] = {
	{ 0x0f, 0x1f, 0x80, 0, 0, 0, 0 },
	{ 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 },
	{ 0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 },
	{ 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 },
};

void mv_arch_finish_copy(uint8_t *buf, size_t len, size_t region_len,
			 const struct mv_insn *insn)
{
	size_t n = region_len - len;

	if (insn->is_jmp) {
		buf[len] = OP_RET;
		memset(buf + len + 1, 0xcc, n - 1);     /* never runs */
	} else if (n > 10) {
		buf[len] = OP_JMP8;                     /* to the end */
		buf[len + 1] = (uint8_t)(n - 2);
		memset(buf + len + 2, 0xcc, n - 2);     /* never runs */
	} else if (n > MV_ARCH_SITE_MAX) {
		memcpy(buf + len, long_nops[n - 7], n);
	} else {
		fill_nop(buf + len, n);
	}
}
