/* SPDX-License-Identifier: MIT */
/*
 * AArch64: the b or bl that points a site at its body.  Inline, unlike
 * the other encoders (aarch64.c): every site of every commit takes one.
 * Included by arch.h only.
 */
#define MV_A64_BL 0x94000000u   /* bl imm26 */
#define MV_A64_B  0x14000000u   /* b imm26 */

/* op (b or bl) at addr to target, within its 128 MiB.  Returns 0, or -1
 * if target is out of reach or not aligned. */
static inline int mv_a64_branch(uint32_t op, uintptr_t addr, uintptr_t target, uint32_t *insn)
{
	int64_t off = (int64_t)(target - addr);

	if ((off & 3) || off < -(1LL << 27) || off >= (1LL << 27))
		return -1;
	*insn = op | ((uint32_t)(off >> 2) & 0x3ffffff);
	return 0;
}

static inline int mv_arch_branch(uint8_t *buf, const struct mv_insn *insn,
				 uintptr_t addr, uintptr_t target)
{
	uint32_t i;

	if (insn->len != 4 || mv_a64_branch(insn->is_jmp ? MV_A64_B : MV_A64_BL, addr, target, &i))
		return -1;
	memcpy(buf, &i, 4);
	return 0;
}
