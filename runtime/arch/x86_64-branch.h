/* SPDX-License-Identifier: MIT */
/*
 * x86-64: the direct call or jump that points a site at its body.  Inline,
 * unlike the other encoders (x86_64.c): every site of every commit takes
 * one.  Included by arch.h only.
 */
#define MV_X86_CALL 0xe8        /* call rel32 */
#define MV_X86_JMP  0xe9        /* jmp rel32 */
#define MV_X86_CS   0x2e        /* the prefix that pads a 6-byte site */

/* The rel32 that reaches target from next, the end of its instruction.
 * Returns 0, or -1 if target is beyond 2 GiB. */
static inline int mv_x86_rel32(uintptr_t next, uintptr_t target, int32_t *rel)
{
	int64_t d = (int64_t)(target - next);

	if (d != (int32_t)d)
		return -1;
	*rel = (int32_t)d;
	return 0;
}

/* buf holds 8 bytes (MV_AREA_MAX): those past len are left undefined. */
static inline int mv_arch_branch(uint8_t *buf, const struct mv_insn *insn,
				 uintptr_t addr, uintptr_t target)
{
	const size_t len = insn->len;
	uint64_t word;
	int32_t rel;

	if (len < 5 || len > 6 || mv_x86_rel32(addr + len, target, &rel))
		return -1;
	word = (uint64_t)(uint32_t)rel << 8 | (insn->is_jmp ? MV_X86_JMP : MV_X86_CALL);
	if (len == 6)
		word = word << 8 | MV_X86_CS;
	/* One 8-byte store, not an opcode byte and a rel32 apart: the
	 * caller compares and copies buf 4 bytes at a time, and a load
	 * that spans two stores waits until both reach the cache (a failed
	 * store-to-load forward), once a site. */
	memcpy(buf, &word, sizeof word);
	return 0;
}
