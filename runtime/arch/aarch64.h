/* SPDX-License-Identifier: MIT */
/*
 * AArch64: the sizes of patch areas and the registers a trap changes.
 * Included by arch.h only.  Every patch area is one 32-bit instruction.
 */
#define MV_ARCH_MACHINE     183 /* EM_AARCH64 */
#define MV_ARCH_NAME        "AArch64"
#define MV_ARCH_SITE_MIN    4   /* bl / b */
#define MV_ARCH_SITE_MAX    4
#define MV_ARCH_ENTRY_LEN   4   /* nop, or b to the variant */
#define MV_ARCH_PAD_LEN     4   /* bti c or a nop, when the entry follows one */
#define MV_ARCH_TRAMP_MAX   24  /* longest trampoline we decode */
#define MV_ARCH_GATE_LEN    16  /* a far-call gate */
/* How far a site may be from a gate it branches to: bl's 128 MiB, less a
 * margin for the gate's place in its page (64 KiB pages too). */
#define MV_ARCH_GATE_REACH  0x07f00000u

/* brk #0x4d56 ("MV"), little-endian: replaces a whole area, and reports
 * its own address.  Immediates others use (0: debuggers, 5: uprobes,
 * 0x3e8: __builtin_trap, 0xf000+: the kernel) are avoided. */
#define MV_ARCH_BREAKPOINT_LEN 4
#define MV_ARCH_BREAKPOINT     "\xc0\xaa\x29\xd4"
#define MV_ARCH_TRAP_PC_AFTER  0

/* The registers the emulation of a patch area may change: bl sets the
 * link register, an inlined constant x0, an inlined ret reads x30. */
struct mv_cpu {
	uint64_t ip;
	uint64_t x0;
	uint64_t lr;
};

/* Only changes between b, bl, nop and brk may be seen by running threads
 * (mv_arch_live_safe). */
#define MV_ARCH_ALWAYS_LIVE_SAFE 0
