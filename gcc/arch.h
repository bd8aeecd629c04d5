/* SPDX-License-Identifier: MIT */
/*
 * The plugin's architecture hooks.  Each architecture has one file in
 * gcc/arch/; the Makefile compiles the one of the target the plugin
 * is built for (a plugin only ever runs in one target's compiler).
 */
#ifndef MULTIVERSE_PLUGIN_ARCH_H
#define MULTIVERSE_PLUGIN_ARCH_H

#include "gcc-compat.h"
#include "descriptor.h"

#include <map>
#include <string>
#include <vector>

/* ELF e_machine of the target, passed to the runtime with the records. */
extern const unsigned mv_arch_machine;

/* Assembler text of the entry patch area: one NOP instruction of the
 * length the runtime's arch file expects (MV_ARCH_ENTRY_LEN). */
extern const char mv_arch_entry_nop[];

/* Writes the module's registration call (descriptors.cc), from a label
 * that .init_array or .fini_array calls: fn(MV_DESCRIPTOR_VERSION, the
 * machine, the six __start_/__stop_ bounds of the module's records),
 * then a return; if optional, only when fn is linked in (a weak
 * reference); with CFI directives if cfi.  One copy serves every unit
 * of the module, so it suits any unit's flags: a landing pad first, a
 * speculation barrier after the return.  mv_arch_module_call_ok() says
 * whether this unit's code model (and, on x86-64, its returns) allow
 * it; if not, each unit gets its own constructor, which GCC builds. */
bool mv_arch_module_call_ok(void);
void mv_arch_write_module_call(FILE *out, const char *fn, bool optional, bool cfi);
/* The six bounds, in the calls' order (MV_MODULE_BOUNDS). */
extern const char *const mv_module_bounds[MV_MODULE_BOUND_COUNT];

/* Assembler text of a NOP as long as a landing pad (MV_ARCH_PAD_LEN),
 * planted first in a user-space generic that has no landing pad: a
 * debugger's `break fn` writes its breakpoint over a function's first
 * instruction, where it must not cover the entry patch area. */
extern const char mv_arch_debugger_nop[];
/* Whether gdb's prologue analysis skips the landing pad (AArch64's bti
 * c), so that the debugger's NOP must follow it too. */
extern const bool mv_arch_debugger_skips_pad;

/* Whether insn is a landing pad for indirect branches (endbr64, bti c)
 * that must stay the first instruction, before the entry patch area. */
bool mv_arch_is_landing_pad(rtx_insn *insn);

/* Assembler text of a landing pad to plant before the entry patch area
 * when first, the function's first instruction, would otherwise be one
 * that an indirect branch may only land on because it comes first
 * (AArch64's paciasp under BTI); NULL if none is needed. */
const char *mv_arch_pad_before_entry(rtx_insn *first);

/* What the multiverse_fnptr_calls pass (sites.cc, after expand) knows of
 * the current function's registers: how many stores each gets, and the
 * sources of those that are single sets. */
struct mv_reg_defs {
	std::map<unsigned, int> sets;
	std::map<unsigned, std::vector<rtx>> srcs;
	rtx single_src(unsigned regno) const;   /* set once, by this */
};

/* Called by that pass for each call or tail call through the pseudo
 * register *addr: puts calls through function-pointer switches in the
 * form the runtime can patch into direct calls. */
void mv_arch_call_through(rtx_insn *call, rtx *addr, const mv_reg_defs &defs);

/* The function-pointer switch a memory operand reads, directly or
 * through a pointer (the GOT), if any. */
tree mv_switch_read_by(rtx mem);

/* stubs.cc: the stub of the function-pointer switch sw, as a symbol to
 * call instead of calling through sw; created on first use. */
rtx mv_stub_symbol(tree sw);
/* The error for a call through sw that no commit could bind, and why
 * ("under -mcmodel=large, ..."), and a note at the switch. */
void mv_error_call_unbound(rtx_insn *call, tree sw, const char *why);
/* Whether the stub of sw reaches its object through the GOT: position
 * independent code, and an object another module may define. */
bool mv_switch_via_got(tree sw);
/* Remembers that sym, which the fnptr-call pass put into a call, stands
 * for the multiversed function fn. */
void mv_note_call_symbol(rtx sym, tree fn);
/* What a symbol the fnptr-call pass put into a call stands for (a
 * function-pointer switch, for a stub; a multiversed function), or
 * NULL_TREE for any other symbol. */
tree mv_call_symbol(rtx sym);
/* Writes the unit's stubs, after its code. */
void mv_write_stubs(FILE *out);

/* Writes the stub called name of the switch at offset bytes into the
 * object (through the object's GOT entry if got): alignment, the label,
 * code that jumps to the address stored in the switch, without touching
 * any register that carries an argument or a value the callee may rely
 * on.  False, after an error naming sw, if the architecture's stub cannot
 * reach that offset. */
bool mv_arch_write_stub(FILE *out, const std::string &name, tree sw,
			const std::string &object, HOST_WIDE_INT offset, bool got);

/* For a call or tail call insn to the multiversed function callee: the
 * symbol to call instead so that the assembler keeps the site's
 * patchable form, or NULL_RTX if the call is fine as it is. */
rtx mv_arch_site_target(rtx_insn *insn, tree callee);

/* A PC-relative field in an instruction of a variant (inline.cc): its
 * kind (MV_RELOC_*), whether the label that locates it goes after the
 * instruction rather than before, and the field's offset from it. */
struct mv_arch_reloc {
	unsigned kind;
	bool after;
	int field;
};

/* Whether insn, in a variant's final code, refers to anything relative to
 * its own address: 0 if not, 1 if by a form described in *r, -1 if by a
 * form the runtime cannot move. */
int mv_arch_pc_relative(rtx_insn *insn, mv_arch_reloc *r);

/* The length of the call or tail call insn as the assembler will encode
 * it. */
unsigned mv_arch_call_len(rtx_insn *insn);

/* The bytes of NOPs to put before a call of call_len bytes so that the
 * site holds size bytes with the call (a tail call one return more, for
 * the return an inlined body then ends with); 0 if the call alone does. */
unsigned mv_arch_pad_bytes(unsigned call_len, bool tail, unsigned size);

/* Assembler text of as many bytes of NOPs as the assembler symbol
 * `bytes` says, which the unit defines at its end (descriptors.cc): at
 * least `least` (its text is the shorter for that: least == most when
 * the size is known already) and at most `most`.  Where the compiler,
 * not the assembler, chooses the form of each branch by its reach, the
 * text must make the compiler's estimate of its length (lines times the
 * longest instruction) at least `most`. */
std::string mv_arch_nops(const std::string &bytes, unsigned least, unsigned most);

#endif
