/* SPDX-License-Identifier: MIT */
/*
 * The Clang front end's architecture hooks: what differs between the
 * targets it supports, one file each in clang/arch/.  The plugin runs in
 * a compiler that may target any of them (clang --target=...), so all are
 * built in, and each module picks its own by its triple.
 */
#ifndef MULTIVERSE_CLANG_ARCH_H
#define MULTIVERSE_CLANG_ARCH_H

#include "llvm/TargetParser/Triple.h"

#include <string>

namespace llvm {
class AsmPrinter; class Function; class MachineFunction; class MachineInstr; class MCContext;
class MCExpr;
class MCSubtargetInfo;
class Module;
}

struct mv_arch {
	const char *target;           /* LLVM's name: its AsmPrinter is wrapped */
	unsigned machine;             /* MV_MACHINE_* */

	/* Whether mi, a pseudo instruction, emits no code (AArch64's
	 * EMITBKEY, which only says .cfi_b_key_frame). */
	bool (*emits_nothing)(const llvm::MachineInstr &mi);
	/* Bytes of landing pad (endbr64, bti c) before f's entry NOP. */
	unsigned (*pad_length)(const llvm::Module &m, const llvm::Function &f);
	/* Whether mi, first in a function, is the landing pad. */
	bool (*is_landing_pad)(const llvm::MachineInstr &mi);
	/* Whether mi, first in a function, lands indirect branches only
	 * because it comes first (AArch64's paciasp under BTI): the entry
	 * NOP goes before it, and a landing pad before the NOP. */
	bool (*pad_goes_before)(const llvm::MachineInstr &mi);
	void (*emit_pad)(llvm::AsmPrinter &ap, const llvm::MCSubtargetInfo &sti);
	void (*emit_entry_nop)(llvm::AsmPrinter &ap, const llvm::MCSubtargetInfo &sti);
	/* A NOP as long as a landing pad, first in a generic that has none:
	 * a debugger's `break fn` covers it, not the entry NOP. */
	void (*emit_debugger_nop)(llvm::AsmPrinter &ap, const llvm::MCSubtargetInfo &sti);
	/* Whether gdb's prologue analysis skips the landing pad (AArch64's
	 * bti c), so that the debugger's NOP must follow it too. */
	bool debugger_skips_pad;

	/* Assembler text of module m's stub of the switch at offset bytes
	 * into object (fnptr.cpp), from its label on: jumps to the address
	 * stored in the switch, reaching the object through its GOT entry
	 * if got, clobbering no register an argument or the callee may
	 * need, and, if retpoline (x86-64), without an indirect jump.
	 * Empty if the stub cannot reach that offset, which
	 * stub_reach then explains.  Where the runtime can retarget the
	 * stub's own jump, the text records that jump as a call site of
	 * the switch too: then every path into the stub is bound by a
	 * commit, also a call LLVM made conditional (jcc stub), which no
	 * site records. */
	std::string (*stub)(const llvm::Module &m, const std::string &object,
			    uint64_t offset, bool got, bool retpoline);
	const char *stub_reach;
	/* LLVM may turn a tail call into a conditional jump (x86-64's jcc
	 * to a function): a call to a stub whose jump is no site must
	 * then not be a tail call. */
	bool conditional_tail_calls;

	/* Bytes of NOPs before a call (a tail call if tail) so that its site
	 * holds size bytes, call included (a tail call one return more);
	 * 0 if the call alone does.  Calls are always direct here. */
	unsigned (*pad_bytes)(unsigned size, bool tail);
	/* Emits that many bytes of padding, which runs one instruction:
	 * a NOP, or where one is not long enough a jump over NOPs. */
	void (*emit_nops)(llvm::AsmPrinter &ap, const llvm::MCSubtargetInfo &sti,
			  unsigned bytes);
	/* The same two, where size is known only to the assembler: an
	 * expression (which must not depend on code after it), and the
	 * padding of an expression's number of bytes, as .fill directives. */
	const llvm::MCExpr *(*pad_bytes_expr)(llvm::MCContext &ctx, const llvm::MCExpr *size,
					       bool tail);
	void (*emit_nops_expr)(llvm::AsmPrinter &ap, const llvm::MCExpr *bytes);
	/* Whether bytes more code, anywhere in mf, keeps each of its
	 * branches in reach of its target: the padding comes after branch
	 * relaxation, which did not count it.  nullptr: the assembler
	 * relaxes every branch itself. */
	bool (*room_for_padding)(const llvm::MachineFunction &mf, uint64_t bytes);

	/* Whether mi, in a variant's final code (inline.cpp), refers to
	 * anything by its distance from itself: 0 if not; 1 if by a form the
	 * runtime relocates, described in *r; -1 if by any other form. */
	int (*pc_relative)(const llvm::MachineInstr &mi, struct mv_arch_reloc *r);
	/* The names (as the target's register info spells them) of the
	 * registers through which code reaches its stack frame. */
	const char *const *stack_registers;
};

/* A PC-relative field: its kind (MV_RELOC_*) and where it is, field bytes
 * from the start of its instruction, or from its end if after. */
struct mv_arch_reloc {
	unsigned kind;
	bool after;
	int field;
};

extern const mv_arch mv_arch_x86_64, mv_arch_aarch64;

/* The hooks for a module's target, or nullptr if it is not supported. */
inline const mv_arch *mv_arch_of(const llvm::Triple &t)
{
	switch (t.getArch()) {
	case llvm::Triple::x86_64:  return &mv_arch_x86_64;
	case llvm::Triple::aarch64: return &mv_arch_aarch64;
	default:                    return nullptr;
	}
}

#endif
