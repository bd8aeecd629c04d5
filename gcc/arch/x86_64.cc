/* SPDX-License-Identifier: MIT */
/*
 * x86-64 hooks of the plugin (gcc/arch.h).
 *
 * Entry: the 5-byte NOP 0f 1f 44 00 00, which commit overwrites with a
 * jmp rel32.  It follows an endbr64 if the function has one
 * (-fcf-protection), else, in user space, the 4-byte NOP 0f 1f 40 00
 * that a debugger's breakpoint on the function may cover.
 *
 * Calls through a function-pointer switch (multiverse_fnptr_calls, after
 * expand): GCC loads the pointer into a register and calls through it, a
 * 2-byte instruction that cannot become a 5-byte direct call.  The pass
 * rewrites the call to go through the switch in memory (call *fp(%rip),
 * or call *cfg+8(%rip) for a member, 6 bytes), which commit turns into a
 * direct call of the same length.  A switch that position-independent
 * code reaches through the GOT is called through its stub instead
 * (gcc/stubs.cc):
 *       call fp.mvcall         fp.mvcall:  movq fp@GOTPCREL(%rip), %r11
 *                                          jmp  *(%r11)
 * (jmp *8(%r11) for a member 8 bytes into its object).
 * The pointer is read at the call, which is when C reads it too.
 *
 * In the kernel (the plugin's kernel argument) every such call goes to the
 * stub: the kernel's text patching cannot rewrite a call through memory.
 * With retpolines (-mindirect-branch=thunk-extern), the stub jumps through
 * the kernel's thunk, never indirectly:
 *       sw.mvcall:  movq sw(%rip), %r11; jmp __x86_indirect_thunk_r11
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
#include "stub-x86_64.h"
#include "explow.h"     /* force_reg */

#include <map>
#include <set>

const unsigned mv_arch_machine = MV_MACHINE_X86_64;

const char mv_arch_entry_nop[] = ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00";

/* The bounds by %rip: within 2 GiB of the code, as in the small model.
 * And a plain return, unless returns must go through a thunk. */
bool mv_arch_module_call_ok(void)
{
	return (ix86_cmodel == CM_SMALL || ix86_cmodel == CM_SMALL_PIC) &&
	       ix86_function_return == indirect_branch_keep;
}

/* Six pointers and two ints: the last two bounds go on the stack, which
 * stays 16-byte aligned at the call (8 at entry, 24 pushed).  The return
 * is followed by an int3, as -mharden-sls=return wants (never reached). */
void mv_arch_write_module_call(FILE *out, const char *fn, bool optional, bool cfi)
{
	const char *cfa = cfi ? "\t.cfi_adjust_cfa_offset" : "#";
	const char *const *b = mv_module_bounds;

	fprintf(out, "%s\tendbr64\n", cfi ? "\t.cfi_startproc\n" : "");
	if (optional)
		fprintf(out, "\tcmpq\t$0, %s@GOTPCREL(%%rip)\n\tje\t1f\n", fn);
	fprintf(out,
		"\tsubq\t$8, %%rsp\n%s 8\n"
		"\tleaq\t%s(%%rip), %%rax\n\tpushq\t%%rax\n%s 8\n"
		"\tleaq\t%s(%%rip), %%rax\n\tpushq\t%%rax\n%s 8\n"
		"\tleaq\t%s(%%rip), %%rdx\n\tleaq\t%s(%%rip), %%rcx\n"
		"\tleaq\t%s(%%rip), %%r8\n\tleaq\t%s(%%rip), %%r9\n"
		"\tmovl\t$%u, %%edi\n\tmovl\t$%u, %%esi\n"
		"\tcall\t%s@PLT\n"
		"\taddq\t$24, %%rsp\n%s -24\n"
		"1:\tret\n\tint3\n%s", cfa, b[5], cfa, b[4], cfa, b[0], b[1], b[2], b[3],
		MV_DESCRIPTOR_VERSION, mv_arch_machine, fn, cfa, cfi ? "\t.cfi_endproc\n" : "");
}
const char mv_arch_debugger_nop[] = ".byte 0x0f, 0x1f, 0x40, 0x00";
const bool mv_arch_debugger_skips_pad = false;    /* gdb breaks on an endbr64 */

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

/* The address a as symbol plus constant, which x86-64 reaches
 * %rip-relative, or NULL_RTX.  Expand puts the symbol of a member's
 * object in a register of its own: (plus (reg) (const_int 8)). */
rtx symbol_address(rtx a, const mv_reg_defs &defs)
{
	HOST_WIDE_INT offset = 0;
	if (GET_CODE(a) == PLUS && CONST_INT_P(XEXP(a, 1))) {
		offset = INTVAL(XEXP(a, 1));
		a = XEXP(a, 0);
	}
	if (REG_P(a) && !HARD_REGISTER_P(a))
		a = defs.single_src(REGNO(a));
	if (a && GET_CODE(a) == CONST && GET_CODE(XEXP(a, 0)) == PLUS &&
	    CONST_INT_P(XEXP(XEXP(a, 0), 1))) {
		offset += INTVAL(XEXP(XEXP(a, 0), 1));
		a = XEXP(XEXP(a, 0), 0);
	}
	return a && GET_CODE(a) == SYMBOL_REF ? plus_constant(Pmode, a, offset)
					      : NULL_RTX;
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

namespace {

/* How the stub of a switch must jump, from the calls that use it. */
struct stub_form {
	bool retpoline;         /* a caller has retpolines */
	bool via_register;      /* ... or may jump through registers only */
	bool site;              /* a -mcmodel=large caller: the stub's jump is the site */
	bool direct;            /* GCC reaches the switch %rip-relative (a
				   PIE's copy relocation), not through the GOT */
};
std::map<tree, stub_form> stub_forms;

} // namespace

void mv_arch_call_through(rtx_insn *call, rtx *addr, const mv_reg_defs &defs)
{
	rtx load = defs.single_src(REGNO(*addr));
	tree var = load ? mv_switch_read_by(load) : NULL_TREE;
	if (!var)
		return;
	bool retpoline = cfun->machine->indirect_branch_type != indirect_branch_keep;
	bool via_register = retpoline || ix86_indirect_branch_register;
	bool large = ix86_cmodel == CM_LARGE || ix86_cmodel == CM_LARGE_PIC;
	rtx direct = symbol_address(XEXP(load, 0), defs);
	if (large && retpoline)
		return mv_error_call_unbound(call, var, "under -mcmodel=large with retpolines");
	/* The kernel's text patching rewrites no call through memory (its
	 * int3 handler cannot emulate one), and retpolines and
	 * -mindirect-branch-register must not jump through memory: those
	 * call the stub. */
	rtx at = mv_kernel || via_register || large ? NULL_RTX : direct;
	rtx form = at ? replace_equiv_address_nv(load, at) : mv_stub_symbol(var);
	stub_form &sf = stub_forms[var];
	sf.retpoline |= retpoline;
	sf.via_register |= via_register;
	sf.direct |= direct != NULL_RTX;
	if (large) {
		/* the large model calls no symbol directly: movabs $stub */
		sf.site = true;
		start_sequence();
		rtx reg = force_reg(Pmode, form);      /* PIC: through the GOT base */
		rtx_insn *seq = get_insns();
		end_sequence();
		emit_insn_before(seq, call);
		form = reg;
	}
	if (!validate_change(call, addr, form, 0))
		mv_error_call_unbound(call, var, "in this form of call");
}

rtx mv_arch_site_target(rtx_insn *insn, tree callee)
{
	return long_jump_target(insn, callee);
}

/* r11 carries no argument and is preserved by no call (SysV ABI); PLT
 * entries and linkers' stubs use it too.  int3 pads the stub, so that
 * the runtime can read the longest trampoline form it knows at it.
 *
 * Under retpolines the stub loads the switch into r11 and jumps to a
 * thunk (jmp rel32, a form the runtime knows): the kernel's, or with
 * user-space retpolines one after the stub, since GCC emits its own
 * only for the calls it compiles:
 *       sw.mvcall:  movq sw(%rip), %r11; jmp 1f
 *       1:          call 3f
 *       2:          pause; lfence; jmp 2b
 *       3:          movq %r11, (%rsp); ret
 * (jmp *%r11 under -mindirect-branch-register alone).  A switch reached
 * through the GOT is loaded in two steps:
 *       movq obj@GOTPCREL(%rip), %r11; movq d(%r11), %r11
 * Under -mcmodel=large the call reaches the stub through a register
 * (movabs $sw.mvcall; call *reg), which commit cannot rewrite: the
 * stub's jmp *sw(%rip) is recorded as the switch's site instead, or,
 * for a switch reached through the GOT, a jmp rel32 to the next
 * instruction before the GOT form, which commit follows to the switch
 * as it follows a call to a stub.  The stub starts with endbr64 under
 * -fcf-protection=branch. */
bool mv_arch_write_stub(FILE *out, const std::string &name, tree sw,
			const std::string &object, HOST_WIDE_INT offset, bool got)
{
	const stub_form &sf = stub_forms[sw];
	got = got && !sf.direct;
	fprintf(out, "\t.p2align 4\n%s:\n", name.c_str());
	if (sf.via_register) {
		if (got)
			fprintf(out, "\tmovq\t%s@GOTPCREL(%%rip), %%r11\n\tmovq\t"
				HOST_WIDE_INT_PRINT_DEC "(%%r11), %%r11\n", object.c_str(), offset);
		else
			fprintf(out, "\tmovq\t%s+" HOST_WIDE_INT_PRINT_DEC "(%%rip), %%r11\n",
				object.c_str(), offset);
		if (!sf.retpoline)
			fprintf(out, "\tjmp\t*%%r11\n");
		else if (ix86_indirect_branch == indirect_branch_thunk_extern)
			fprintf(out, "\tjmp\t__x86_indirect_thunk_r11\n");
		else
			fputs(MV_X86_RETPOLINE_R11, out);
	} else if (sf.site) {
		if (flag_cf_protection & CF_BRANCH)
			fprintf(out, "\tendbr64\n");
		if (got)        /* a jmp rel32 to the GOT form is the site */
			fprintf(out, "1:\t.byte\t0xe9\n\t.long\t0\n\tmovq\t%s@GOTPCREL(%%rip), %%r11\n"
				"\tjmp\t*" HOST_WIDE_INT_PRINT_DEC "(%%r11)\n", object.c_str(), offset);
		else
			fprintf(out, "1:\tjmp\t*%s+" HOST_WIDE_INT_PRINT_DEC "(%%rip)\n",
				object.c_str(), offset);
		fprintf(out, "\t.pushsection " MV_SECTION_SITE ",\"aw\"\n\t.balign 8\n"
			"\t.quad\t1b - ., %s+" HOST_WIDE_INT_PRINT_DEC "\n\t.long\t0, %u\n"
			"\t.popsection\n", object.c_str(), offset, MV_SITE_SITE_RELATIVE);
	} else if (got)
		fprintf(out, "\tmovq\t%s@GOTPCREL(%%rip), %%r11\n"
			"\tjmp\t*" HOST_WIDE_INT_PRINT_DEC "(%%r11)\n",
			object.c_str(), offset);
	else
		fprintf(out, "\tjmp\t*%s+" HOST_WIDE_INT_PRINT_DEC "(%%rip)\n",
			object.c_str(), offset);
	fprintf(out, "\t.p2align 4, 0xcc\n");
	return true;
}

/*
 * PC-relative references in a variant (gcc/inline.cc).  In 64-bit code a
 * memory operand whose address is a symbol (plus a constant), with no
 * base or index register, is %rip-relative: the disp32 that follows its
 * ModRM byte, and after that only the instruction's immediate.  So the
 * field lies 4 + (immediate bytes) before the instruction's end, where
 * the label goes; the runtime checks the ModRM byte before it
 * (mod 00, r/m 101).  A symbol's address loaded into a register is
 * lea sym(%rip) (the same field) or an absolute immediate, depending on
 * -fPIC, and a symbol beside a register in memory is an absolute disp32
 * without -fPIC (small and kernel code models): neither moves.  Anything
 * less plain (two references, other code models) is refused.
 */
namespace {

bool symbolic(const_rtx x)
{
	subrtx_iterator::array_type array;
	FOR_EACH_SUBRTX(it, array, x, ALL) {
		const_rtx y = *it;
		if (REG_P(y))
			return false;
		if (GET_CODE(y) == SYMBOL_REF && SYMBOL_REF_TLS_MODEL(y))
			return false;
	}
	return true;
}

bool has_symbol(const_rtx x)
{
	subrtx_iterator::array_type array;
	FOR_EACH_SUBRTX(it, array, x, ALL)
		if (GET_CODE(*it) == SYMBOL_REF || GET_CODE(*it) == LABEL_REF)
			return true;
	return false;
}

/*
 * The bytes of insn's immediate, or -1 if unknown.  i386.md computes
 * length_immediate from the insn's type, and says 0 for types "other"
 * and "multi" whatever they print: the atomics are such.  Their
 * immediate is a constant operand with a constraint (a memory model
 * operand has none).  A store of a constant (atomic_store) prints mov,
 * whose immediate is the operand's size up to 4 bytes; the others (lock
 * add: inc, an imm8 or an imm32, as its output code decides) are
 * unknown.
 */
int immediate_bytes(rtx_insn *insn)
{
	enum attr_type type = get_attr_type(insn);
	if (type != TYPE_OTHER && type != TYPE_MULTI)
		return get_attr_length_immediate(insn);
	extract_insn_cached(insn);
	bool constant = false;
	for (int i = 0; i < recog_data.n_operands; i++)
		constant |= CONST_INT_P(recog_data.operand[i]) && *recog_data.constraints[i];
	if (!constant)
		return 0;
	rtx pat = PATTERN(insn);
	if (GET_CODE(pat) != SET || !MEM_P(SET_DEST(pat)))
		return -1;
	rtx src = SET_SRC(pat);
	if (GET_CODE(src) == UNSPEC && XVECLEN(src, 0) > 0)
		src = XVECEXP(src, 0, 0);
	if (!CONST_INT_P(src))
		return -1;
	return MIN(GET_MODE_SIZE(GET_MODE(SET_DEST(pat))).to_constant(), 4);
}

} // namespace

int mv_arch_pc_relative(rtx_insn *insn, mv_arch_reloc *r)
{
	rtx pat = PATTERN(insn);
	if (!has_symbol(pat))
		return 0;
	/* A symbol's address into a register: lea sym(%rip), reg when the
	 * code is position-independent (the small PIC model), an absolute
	 * mov $sym, reg in the small and kernel models, which moves as it
	 * is; any other form is refused. */
	bool absolute = !flag_pic && (ix86_cmodel == CM_SMALL || ix86_cmodel == CM_KERNEL);
	rtx set = single_set(insn);
	rtx src = set ? SET_SRC(set) : NULL_RTX;
	if (src && REG_P(SET_DEST(set)) && (GET_CODE(src) == SYMBOL_REF ||
	    GET_CODE(src) == LABEL_REF || GET_CODE(src) == CONST) && symbolic(src)) {
		if (flag_pic && ix86_cmodel == CM_SMALL_PIC) {
			r->kind = MV_RELOC_X86_RIP32;
			r->after = true;
			r->field = -4;
			return 1;
		}
		return absolute ? 0 : -1;
	}
	int rip = 0, other = 0;
	const_rtx first = NULL_RTX;
	subrtx_iterator::array_type array;
	FOR_EACH_SUBRTX(it, array, pat, ALL) {
		const_rtx x = *it;
		if (MEM_P(x) && has_symbol(XEXP(x, 0))) {
			/* beside a register: an absolute disp32, where the
			 * code is not position-independent; a
			 * read-modify-write names its one operand twice */
			if (!symbolic(XEXP(x, 0)))
				other += !absolute;
			else if (!first || !rtx_equal_p(first, XEXP(x, 0)))
				rip++;
			first = first ? first : XEXP(x, 0);
			it.skip_subrtxes();
		} else if (GET_CODE(x) == SYMBOL_REF || GET_CODE(x) == LABEL_REF) {
			other++;
		}
	}
	if (other > 0 || rip > 1)
		return -1;
	if (!rip)
		return 0;
	int imm = immediate_bytes(insn);
	if (imm < 0)
		return -1;
	r->kind = MV_RELOC_X86_RIP32;
	r->after = true;
	r->field = -(4 + imm);
	return 1;
}

/* call rel32 is 5 bytes, call *sw(%rip) 6; ret 1. */
unsigned mv_arch_call_len(rtx_insn *insn)
{
	rtx call = get_call_rtx_from(insn);
	return call && MEM_P(XEXP(call, 0)) && MEM_P(XEXP(XEXP(call, 0), 0)) ? 6 : 5;
}

unsigned mv_arch_pad_bytes(unsigned call_len, bool tail, unsigned size)
{
	return size <= call_len ? 0 : size - call_len + (tail ? 1 : 0);
}

/* Gas lays the NOPs out when it knows their number, at the end, and
 * chooses the form of each branch then.  Beyond the longest NOP (11
 * bytes) the padding starts with a jump over the rest, so it always runs
 * one instruction (runtime/region.c).  A .fill's count may refer to a
 * symbol defined later, its value may not: one .fill per length there
 * may be, of which only that of the length chosen is emitted. */
std::string mv_arch_nops(const std::string &bytes, unsigned least, unsigned most)
{
	std::string text, jumps = "0";
	unsigned first = MAX(12u, least);
	for (unsigned n = first; n <= most; n++)
		text += "\t.fill (" + bytes + " == " + std::to_string(n) + ") & 1, 2, " +
			std::to_string(0xeb | (n - 2) << 8) + "\n";  /* jmp .+n */
	if (first <= most)
		jumps = "(" + bytes + " >= " + std::to_string(first) + ") & (" + bytes +
			" <= " + std::to_string(most) + ") & 2";
	return text + "\t.nops " + bytes + " - (" + jumps + ")";
}
