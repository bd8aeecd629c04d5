/*
 * x86-64 hooks of the plugin (gcc/arch.h).
 *
 * Entry: the 5-byte NOP 0f 1f 44 00 00, after an endbr64 if the function
 * has one (-fcf-protection), which commit overwrites with a jmp rel32.
 *
 * Calls through a function-pointer switch (multiverse_fnptr_calls, after
 * expand): GCC loads the pointer into a register and calls through it, a
 * 2-byte instruction that cannot become a 5-byte direct call.  The pass
 * rewrites the call to go through the switch in memory (call *fp(%rip),
 * 6 bytes), which commit turns into a direct call of the same length.
 * A switch that position-independent code reaches through the GOT is
 * called through its stub instead (gcc/stubs.cc):
 *       call fp.mvcall         fp.mvcall:  movq fp@GOTPCREL(%rip), %r11
 *                                          jmp  *(%r11)
 * The pointer is read at the call, which is when C reads it too.
 *
 * Tail calls stay 5 bytes long.  Gas shortens `jmp f` to a 2-byte jmp when
 * f binds locally and lies in the caller's section: a generic's tail call
 * to itself, or calls within a section the user gave.  Such a jump cannot
 * reach a variant, so it is sent to a hidden weak alias of f instead,
 * which gas must leave to the linker.
 */
#include "../multiverse.h"
#include "../arch.h"
#include "descriptor.h"

#include <map>
#include <set>

const unsigned mv_arch_machine = MV_MACHINE_X86_64;

const char mv_arch_entry_nop[] = ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00";

bool mv_arch_is_landing_pad(rtx_insn *insn)
{
	int code = recog_memoized(insn);
	return code >= 0 && strstr(insn_data[code].name, "endbr");
}

const char *mv_arch_pad_before_entry(rtx_insn *)
{
	return NULL;            /* GCC plants endbr64 itself, always first */
}

namespace {

bool is_fnptr_switch_mem(rtx x)
{
	if (!MEM_P(x))
		return false;
	rtx a = XEXP(x, 0);
	return GET_CODE(a) == SYMBOL_REF && SYMBOL_REF_DECL(a) &&
	       mv_is_fnptr_switch(SYMBOL_REF_DECL(a));
}

/* The switch a memory load reads through a pointer (the GOT, in PIC code
 * for a switch other modules could interpose), if any. */
tree fnptr_switch_behind(rtx x)
{
	if (!MEM_P(x) || GET_CODE(XEXP(x, 0)) == SYMBOL_REF)
		return NULL_TREE;
	return mv_switch_read_by(x);
}

const char *section_of(tree decl)
{
	const char *s = DECL_SECTION_NAME(decl);
	return s ? s : ".text";
}

/* The hidden weak alias of callee that a tail call from the current
 * function must use, or NULL if gas keeps the jump long anyway. */
rtx long_jump_target(rtx_insn *insn, tree callee)
{
	static std::set<tree> aliased;
	rtx call = get_call_rtx_from(insn);
	rtx addr = XEXP(XEXP(call, 0), 0);
	cgraph_node *node = cgraph_node::get(callee);

	if (!SIBLING_CALL_P(insn) || GET_CODE(addr) != SYMBOL_REF ||
	    !SYMBOL_REF_LOCAL_P(addr) || !node || !node->definition ||
	    strcmp(section_of(callee), section_of(current_function_decl)))
		return NULL_RTX;
	const char *name = targetm.strip_name_encoding(XSTR(addr, 0));
	std::string alias = std::string(name) + ".mvjmp";
	if (!aliased.count(callee)) {
		aliased.insert(callee);
		mv_keep(callee);
		/* Directives that do not depend on the current section, so
		 * they may go out between two functions. */
		fprintf(asm_out_file, "\t.weak\t%s\n\t.hidden\t%s\n"
			"\t.set\t%s, %s\n", alias.c_str(), alias.c_str(),
			alias.c_str(), name);
	}
	rtx sym = gen_rtx_SYMBOL_REF(Pmode, ggc_strdup(alias.c_str()));
	SYMBOL_REF_FLAGS(sym) = SYMBOL_REF_FLAGS(addr);
	return sym;
}

} // namespace

void mv_arch_call_through(rtx_insn *call, rtx *addr, const mv_reg_defs &defs)
{
	rtx load = defs.single_src(REGNO(*addr));
	if (!load)
		return;
	tree var = NULL_TREE;
	rtx form = NULL_RTX;
	if (is_fnptr_switch_mem(load)) {
		var = SYMBOL_REF_DECL(XEXP(load, 0));
		form = copy_rtx(load);
	} else if ((var = fnptr_switch_behind(load))) {
		form = mv_stub_symbol(var);
	}
	if (var && !validate_change(call, addr, form, 0))
		warning_at(INSN_LOCATION(call), 0,
			   "this call through multiverse function "
			   "pointer %qD cannot be made patchable; it "
			   "stays indirect after commit", var);
}

rtx mv_arch_site_target(rtx_insn *insn, tree callee)
{
	return long_jump_target(insn, callee);
}

/* r11 carries no argument and is preserved by no call (SysV ABI); PLT
 * entries and linkers' stubs use it too.  int3 pads the stub, so that
 * the runtime can read the longest trampoline form it knows at it. */
void mv_arch_write_stub(FILE *out, const std::string &name, const std::string &var,
			bool got)
{
	fprintf(out, "\t.p2align 4\n%s:\n", name.c_str());
	if (got)
		fprintf(out, "\tmovq\t%s@GOTPCREL(%%rip), %%r11\n"
			"\tjmp\t*(%%r11)\n", var.c_str());
	else
		fprintf(out, "\tjmp\t*%s(%%rip)\n", var.c_str());
	fprintf(out, "\t.p2align 4, 0xcc\n");
}
