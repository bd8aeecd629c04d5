/* SPDX-License-Identifier: MIT */
/*
 * x86-64: the sizes of patch areas and the registers a trap changes.
 * Included by arch.h only.
 */
#define MV_ARCH_MACHINE     62  /* EM_X86_64 */
#define MV_ARCH_NAME        "x86-64"
#define MV_ARCH_SITE_MIN    5   /* call/jmp rel32 */
#define MV_ARCH_SITE_MAX    6   /* longest call site we decode */
#define MV_ARCH_ENTRY_LEN   5   /* the patch area at a generic's entry */
#define MV_ARCH_PAD_LEN     4   /* endbr64 or a NOP, when the entry follows one */
#define MV_ARCH_TRAMP_MAX   20  /* longest trampoline prefix we read */
#define MV_ARCH_GATE_LEN    16  /* a far-call gate */
/* How far a site may be from a gate it branches to: rel32's 2 GiB, less a
 * margin for the gate's place in its page and the site's length. */
#define MV_ARCH_GATE_REACH  0x7ff00000u

/* int3: one byte, so it can be written over the first byte of any area
 * while the rest of it changes.  The trap reports the address after it. */
#define MV_ARCH_BREAKPOINT_LEN 1
#define MV_ARCH_BREAKPOINT     "\xcc"
#define MV_ARCH_TRAP_PC_AFTER  1

/* The registers the emulation of a patch area may change: a call pushes
 * the return address, an inlined constant sets rax. */
struct mv_cpu {
	uint64_t ip;
	uint64_t sp;
	uint64_t ax;
};

/* Every change of one area may be seen by running threads, written by the
 * breakpoint protocol (mv_arch_live_safe). */
#define MV_ARCH_ALWAYS_LIVE_SAFE 1
