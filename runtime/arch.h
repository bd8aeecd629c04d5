/* SPDX-License-Identifier: MIT */
/*
 * Instruction encoding: the interface to the only code that knows machine
 * instructions, one file per architecture in runtime/arch/.  Encoding and
 * decoding work on byte buffers and touch no other memory, so they can be
 * tested on plain arrays; emulation also reads and writes the interrupted
 * thread's stack or memory operands.
 *
 * runtime/arch/<arch>.h gives the sizes (MV_ARCH_SITE_MIN/MAX,
 * MV_ARCH_ENTRY_LEN, MV_ARCH_PAD_LEN, MV_ARCH_TRAMP_MAX, MV_ARCH_GATE_LEN
 * and MV_ARCH_GATE_REACH), the breakpoint
 * (MV_ARCH_BREAKPOINT, _LEN, MV_ARCH_TRAP_PC_AFTER), the ELF machine
 * (MV_ARCH_MACHINE) and struct mv_cpu.
 */
#ifndef MV_ARCH_H
#define MV_ARCH_H

#include "env.h"
#include "descriptor.h"

#if defined(__x86_64__)
#include "arch/x86_64.h"
#elif defined(__aarch64__)
#include "arch/aarch64.h"
#else
#error "multiverse: no runtime/arch/ support for this architecture"
#endif

/* A call site: a call or tail jmp, direct or through a pointer. */
struct mv_insn {
	uint8_t len;
	uint8_t is_jmp;       /* a tail jump: the callee returns for us */
	uint8_t indirect;     /* through the pointer stored at ref */
	uintptr_t ref;        /* the branch target, or the pointer's address */
};

/* What a variant body does, as far as inlining cares. */
enum mv_body_kind {
	MV_BODY_OTHER,        /* not inlinable */
	MV_BODY_EMPTY,        /* returns at once */
	MV_BODY_CONST,        /* sets the whole return register to value, returns */
	MV_BODY_CONST8,       /* sets only the low byte (al) to value, returns */
};

struct mv_body {
	enum mv_body_kind kind;
	uint64_t value;
};

/* Decodes the call site whose first avail (>= MV_ARCH_SITE_MIN) bytes
 * are code, located at addr.  Returns 0, or -1 if it is not a form we can patch. */
int mv_arch_decode(const uint8_t *code, size_t avail, uintptr_t addr,
		   struct mv_insn *insn);

/*
 * Code that a direct call may land on instead of its callee, and that only
 * passes the call on: a PLT entry, a linker's veneer for a far target, the
 * plugin's stub for calls through a function-pointer switch.
 */
enum mv_tramp_kind {
	MV_TRAMP_JUMP = 1,      /* to target */
	MV_TRAMP_SLOT,          /* to the address stored at slot */
	MV_TRAMP_SLOT2,         /* to the address stored disp bytes after
				   where slot points */
};

struct mv_tramp {
	enum mv_tramp_kind kind;
	uintptr_t target;       /* MV_TRAMP_JUMP */
	uintptr_t slot;         /* MV_TRAMP_SLOT, MV_TRAMP_SLOT2 */
	uintptr_t disp;         /* MV_TRAMP_SLOT2 */
};

/* If code (at addr, avail bytes, at most MV_ARCH_TRAMP_MAX) is a
 * trampoline, describes it in *t and returns 0; otherwise returns -1. */
int mv_arch_trampoline(const uint8_t *code, size_t avail, uintptr_t addr,
		       struct mv_tramp *t);

/* Whether the protocol of poke.c may change an area from old to new (len
 * bytes each) while other threads may execute it.  Where it may not, the
 * runtime writes new only while no other thread exists. */
int mv_arch_live_safe(const uint8_t *old, const uint8_t *new, size_t len);
/* MV_ARCH_ALWAYS_LIVE_SAFE, in the architecture's header: 1 where
 * mv_arch_live_safe() says yes to every change, so callers need not ask. */

/* Whether the len bytes at code are padding as the plugins put it before
 * a call: NOPs (x86-64: multi-byte NOPs; AArch64: nop), the first of
 * them perhaps a jump to their end. */
int mv_arch_padding(const uint8_t *code, size_t len);

/*
 * Copies of variants in padded call sites (runtime/region.c).  A region
 * of region_len bytes ends with the site's call insn.
 *
 * mv_arch_fits: whether len bytes of a variant's code fit the region (a
 * tail call's copy needs a return after it).
 * mv_arch_relocate: adjusts the PC-relative field r of code (len bytes,
 * copied from `from`) for running at `to`; returns 0, or -1 if the
 * instruction r names is not of r's kind or its target is out of reach.
 * mv_arch_finish_copy: completes buf after the len bytes of a copy: for a
 * call, what runs on to the region's end; for a tail call, a return.
 */
int mv_arch_fits(const struct mv_insn *insn, size_t len, size_t region_len);
int mv_arch_relocate(uint8_t *code, size_t len, const struct mv_desc_reloc *r,
		     uintptr_t from, uintptr_t to);
void mv_arch_finish_copy(uint8_t *buf, size_t len, size_t region_len,
			 const struct mv_insn *insn);

/* Encodes into buf a direct call or jump (as insn's kind) of insn->len
 * bytes at addr to target.  Returns 0, or -1 if it cannot reach target
 * (buf untouched).  buf has MV_AREA_MAX bytes: an encoder may store all
 * of them at once, those past insn->len undefined.
 * static inline int mv_arch_branch(uint8_t *buf, const struct mv_insn *insn,
 *                                  uintptr_t addr, uintptr_t target); */
#if defined(__x86_64__)
#include "arch/x86_64-branch.h"
#else
#include "arch/aarch64-branch.h"
#endif

/* Encodes into buf (MV_ARCH_GATE_LEN bytes) a far-call gate: code that
 * jumps to target from anywhere, leaving the registers a call preserves
 * and the return address as they are.  Sites beyond a direct branch's
 * reach of target branch to a gate near them (platform.h, mv_gate). */
void mv_arch_gate(uint8_t *buf, uintptr_t target);

/* Classifies the body starting at code; reads no further than the pattern
 * it matches, so code may end right after a return. */
void mv_arch_classify(const uint8_t *code, struct mv_body *body);

/* Encodes body, inlined, into buf (insn->len bytes) in place of insn.
 * Returns 0, or -1 if body is not inlinable or does not fit. */
int mv_arch_inline(uint8_t *buf, const struct mv_insn *insn,
		   const struct mv_body *body);

/* Executes, for a thread stopped at addr, the single instruction insn of
 * len bytes that the area at addr holds: updates cpu and, for a call,
 * stores the return address (x86-64: on the thread's stack).  Returns 0,
 * or -1 for an instruction the runtime never writes. */
int mv_arch_emulate(const uint8_t *insn, size_t len, uintptr_t addr,
		    struct mv_cpu *cpu);

/* Whether the breakpoint starts at p. */
static inline int mv_is_breakpoint(const volatile uint8_t *p)
{
	for (size_t i = 0; i < MV_ARCH_BREAKPOINT_LEN; i++)
		if (p[i] != (uint8_t)MV_ARCH_BREAKPOINT[i])
			return 0;
	return 1;
}

/* The entry patch area as the compiler leaves it: one NOP instruction. */
extern const uint8_t mv_arch_entry_nop[MV_ARCH_ENTRY_LEN];

/* Encodes into buf a jump from the entry patch area at entry to target.
 * Returns 0, or -1 if it cannot reach. */
int mv_arch_entry_jump(uint8_t *buf, uintptr_t entry, uintptr_t target);

#endif
