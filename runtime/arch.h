/*
 * Instruction encoding: the only code that knows machine instructions.
 * Everything here works on byte buffers and never touches memory other
 * than the buffers it is given, so it can be tested on plain arrays.
 */
#ifndef MV_ARCH_H
#define MV_ARCH_H

#include <stddef.h>
#include <stdint.h>

#define MV_ARCH_SITE_MAX  6   /* longest call site we decode */
#define MV_ARCH_ENTRY_LEN 5   /* the patch area at a generic's entry */

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
	MV_BODY_RAX,          /* sets all of rax to value, returns */
	MV_BODY_AL,           /* sets only al to value, returns */
};

struct mv_body {
	enum mv_body_kind kind;
	uint64_t value;
};

/* Decodes the call site whose first avail (>= 5) bytes are code, located
 * at addr.  Returns 0, or -1 if it is not a form we can patch. */
int mv_arch_decode(const uint8_t *code, size_t avail, uintptr_t addr,
		   struct mv_insn *insn);

/* The longest PLT entry prologue mv_arch_plt_slot() reads. */
#define MV_ARCH_PLT_MAX 11

/* If code (at addr, MV_ARCH_PLT_MAX bytes) is a PLT entry, stores the
 * address of the GOT slot it jumps through in *slot and returns 0;
 * otherwise returns -1. */
int mv_arch_plt_slot(const uint8_t *code, uintptr_t addr, uintptr_t *slot);

/* Encodes into buf a direct call or jmp (as insn's kind) of insn->len bytes
 * at addr to target.  Returns 0, or -1 if rel32 cannot reach target. */
int mv_arch_branch(uint8_t *buf, const struct mv_insn *insn, uintptr_t addr,
		   uintptr_t target);

/* Classifies the body starting at code; reads no further than the pattern
 * it matches, so code may end right after a return. */
void mv_arch_classify(const uint8_t *code, struct mv_body *body);

/* Encodes body, inlined, into buf (insn->len bytes) in place of insn.
 * Returns 0, or -1 if body is not inlinable or does not fit. */
int mv_arch_inline(uint8_t *buf, const struct mv_insn *insn,
		   const struct mv_body *body);

/* One byte that traps when executed (int3), written over the first byte
 * of an area while the rest of it changes. */
#define MV_ARCH_BREAKPOINT 0xcc

/* The registers the emulation of a patch area may change. */
struct mv_cpu {
	uint64_t ip;
	uint64_t sp;
	uint64_t ax;
};

/* Executes, for a thread stopped at addr, the single instruction insn of
 * len bytes that the area at addr holds: updates cpu and, for a call,
 * pushes the return address on the thread's stack.  Returns 0, or -1 for
 * an instruction the runtime never writes. */
int mv_arch_emulate(const uint8_t *insn, size_t len, uintptr_t addr,
		    struct mv_cpu *cpu);

/* The entry patch area as the compiler leaves it: one 5-byte NOP. */
extern const uint8_t mv_arch_entry_nop[MV_ARCH_ENTRY_LEN];

/* Encodes into buf a jmp from the entry patch area at entry to target.
 * Returns 0, or -1 if rel32 cannot reach. */
int mv_arch_entry_jump(uint8_t *buf, uintptr_t entry, uintptr_t target);

#endif
