/*
 * The plugin's architecture hooks.  Each architecture has one file in
 * plugin/arch/; the Makefile compiles the one of the target the plugin
 * is built for (a plugin only ever runs in one target's compiler).
 */
#ifndef MULTIVERSE_PLUGIN_ARCH_H
#define MULTIVERSE_PLUGIN_ARCH_H

#include "gcc-compat.h"

#include <map>

/* ELF e_machine of the target, passed to the runtime with the records. */
extern const unsigned mv_arch_machine;

/* Assembler text of the entry patch area: one NOP instruction of the
 * length the runtime's arch file expects (MV_ARCH_ENTRY_LEN). */
extern const char mv_arch_entry_nop[];

/* Whether insn is a landing pad for indirect branches (endbr64, bti c)
 * that must stay the first instruction, before the entry patch area. */
bool mv_arch_is_landing_pad(rtx_insn *insn);

/* An RTL pass, after expand, that puts calls through function-pointer
 * switches in the form the runtime can patch into direct calls. */
opt_pass *mv_make_fnptr_call_pass(gcc::context *ctxt);

/* For the fnptr-call passes (sites.cc): counts, per register, the
 * stores insn makes to it; and the function-pointer switch a memory
 * operand reads, directly or through a pointer (the GOT), if any. */
void mv_count_reg_sets(rtx_insn *insn, std::map<unsigned, int> &sets);
tree mv_switch_read_by(rtx mem);

/* What a symbol the fnptr-call pass put into a call stands for (a
 * function-pointer switch, for a stub; a multiversed function), or
 * NULL_TREE for any other symbol. */
tree mv_arch_call_symbol(rtx sym);

/* Writes what the unit needs after its code (the stubs). */
void mv_arch_finish_unit(FILE *out);

/* For a call or tail call insn to the multiversed function callee: the
 * symbol to call instead so that the assembler keeps the site's
 * patchable form, or NULL_RTX if the call is fine as it is. */
rtx mv_arch_site_target(rtx_insn *insn, tree callee);

#endif
