/* SPDX-License-Identifier: MIT */
/*
 * AArch64 hooks of the plugin (gcc/arch.h).
 *
 * Entry: a nop, after a `bti c` if the function has one
 * (-mbranch-protection=bti), and in user space after another nop that a
 * debugger's breakpoint on the function covers (gdb's prologue analysis
 * skips a bti c, so that nop follows it).  Commit overwrites
 * it with a b to the variant.  Under BTI, a function that starts by signing its return
 * address (paciasp, -mbranch-protection=standard) gets a bti c before
 * the nop.
 *
 * Calls through a function-pointer switch (multiverse_fnptr_calls, after
 * expand): GCC loads the pointer and calls through a register (blr), and
 * the architecture does not let another thread see blr turn into bl.  So
 * the pass sends each such call, or tail call, to a stub of the switch
 * instead, which this unit defines at its end:
 *
 *       bl   sw.mvcall              sw.mvcall:
 *                                         adrp x16, sw
 *                                         ldr  x16, [x16, :lo12:sw]
 *                                         br   x16
 *
 * (through the GOT when the switch may live in another module).  x16 is
 * the register the procedure call standard gives veneers and stubs.  The
 * call site is a plain bl that commit retargets to the selected function,
 * bl to bl, which other threads may see change; the runtime checks that
 * the stub really jumps through the switch before it writes the site.
 * The pointer is read when the call is made, which is when C reads it.
 *
 * Direct calls compiled with -fno-plt load the callee's address from the
 * GOT and call through a register too.  For a multiversed function the
 * pass makes them direct again (bl f, through a PLT entry if f is in
 * another module), so that they can be recorded and bound.
 *
 * Branches keep their form: bl and b are always 4 bytes.  A callee beyond
 * bl's +-128 MiB gets a veneer from the linker, which the runtime follows.
 *
 * Example:
 *   __attribute__((multiverse)) void (*hook)(int);
 *   void f(int x) { hook(x); }        ->   f: b hook.mvcall
 */
#include "../multiverse.h"
#include "../arch.h"
#include "descriptor.h"
#include "tm_p.h"          /* aarch64_bti_enabled */

#include <map>
#include <set>

const unsigned mv_arch_machine = MV_MACHINE_AARCH64;

const char mv_arch_entry_nop[] = "nop";

/* The bounds by adrp: within 4 GiB of the code (not the large model),
 * as 64-bit pointers (LP64). */
bool mv_arch_module_call_ok(void)
{
	return aarch64_cmodel != AARCH64_CMODEL_LARGE && !TARGET_ILP32;
}

/* Eight arguments, all in registers: a tail call, which leaves the link
 * register alone (nothing to sign under pac-ret).  hint 34 is bti c.  The
 * return is followed by the barrier -mharden-sls=retbr wants (never
 * reached). */
void mv_arch_write_module_call(FILE *out, const char *fn, bool optional, bool cfi)
{
	fprintf(out, "%s\thint\t34\n", cfi ? "\t.cfi_startproc\n" : "");
	if (optional)
		fprintf(out, "\tadrp\tx16, :got:%s\n\tldr\tx16, [x16, #:got_lo12:%s]\n"
			"\tcbz\tx16, 1f\n", fn, fn);
	fprintf(out, "\tmov\tw0, #%u\n\tmov\tw1, #%u\n", MV_DESCRIPTOR_VERSION, mv_arch_machine);
	for (unsigned i = 0; i < MV_MODULE_BOUND_COUNT; i++)
		fprintf(out, "\tadrp\tx%u, %s\n\tadd\tx%u, x%u, #:lo12:%s\n",
			i + 2, mv_module_bounds[i], i + 2, i + 2, mv_module_bounds[i]);
	fprintf(out, "\tb\t%s\n1:\tret\n\tdsb\tsy\n\tisb\n%s", fn,
		cfi ? "\t.cfi_endproc\n" : "");
}
const char mv_arch_debugger_nop[] = "nop";
const bool mv_arch_debugger_skips_pad = true;

bool mv_arch_is_landing_pad(rtx_insn *insn)
{
	int code = recog_memoized(insn);
	return code >= 0 && strstr(insn_data[code].name, "bti");
}

/* paciasp and pacibsp are landing pads of their own under BTI, so GCC
 * gives a function that starts with one no bti c.  The entry nop must
 * come before the signing (the variant a committed entry branches to
 * signs the return address itself), so it gets the bti c instead. */
const char *mv_arch_pad_before_entry(rtx_insn *first)
{
	int code = recog_memoized(first);

	if ((code == CODE_FOR_paciasp || code == CODE_FOR_pacibsp) &&
	    aarch64_bti_enabled())
		return "hint\t34 // bti c";
	return NULL;
}

rtx mv_arch_site_target(rtx_insn *, tree)
{
	return NULL_RTX;
}

namespace {

/* A symbol for a direct call of the multiversed function fn.  It carries
 * no declaration, so that -fno-plt does not turn it back into a load from
 * the GOT. */
rtx direct_symbol(rtx orig, tree fn)
{
	rtx sym = gen_rtx_SYMBOL_REF(Pmode, XSTR(orig, 0));
	SYMBOL_REF_FLAGS(sym) = SYMBOL_REF_FLAGS(orig) & SYMBOL_FLAG_FUNCTION;
	mv_note_call_symbol(sym, fn);
	return sym;
}

/* A register set to the address of a multiversed function (-fno-plt). */
bool function_address(rtx src)
{
	return GET_CODE(src) == SYMBOL_REF && SYMBOL_REF_DECL(src) &&
	       mv_is_function(SYMBOL_REF_DECL(src));
}

} // namespace

/* Follows copies back to the load of a switch or the address of a
 * multiversed function, each set once. */
void mv_arch_call_through(rtx_insn *call, rtx *addr, const mv_reg_defs &defs)
{
	rtx src = defs.single_src(REGNO(*addr));

	for (int hops = 0; hops < 8 && src && REG_P(src) && !HARD_REGISTER_P(src); hops++)
		src = defs.single_src(REGNO(src));
	if (!src)
		return;
	if (function_address(src)) {
		validate_change(call, addr, direct_symbol(src, SYMBOL_REF_DECL(src)), 0);
		return;
	}
	tree var = mv_switch_read_by(src);
	if (var && !validate_change(call, addr, mv_stub_symbol(var), 0))
		mv_error_call_unbound(call, var, "in this form of call");
}

/* x16 is the register the procedure call standard gives veneers and
 * stubs (IP0). */
bool mv_arch_write_stub(FILE *out, const std::string &name, tree sw,
			const std::string &object, HOST_WIDE_INT offset, bool got)
{
	/* ldr's unsigned offset: a multiple of 8, below 32 KiB */
	if (got && (offset % 8 || offset >= 4096 * 8)) {
		error_at(DECL_SOURCE_LOCATION(mv_switch_decl(sw)),
			 "calls through function-pointer switch %qs cannot be "
			 "made patchable: it lies " HOST_WIDE_INT_PRINT_DEC
			 " bytes into an object another module may define, and "
			 "AArch64 stubs reach only 8-byte aligned members in the "
			 "first 32 KiB of such an object", mv_switch_name(sw), offset);
		return false;
	}
	std::string at = object + (offset ? "+" + std::to_string(offset) : "");
	fprintf(out, "\t.p2align 2\n%s:\n", name.c_str());
	/* reached by bl, or through a linker's veneer (br x16) when far */
	if (aarch64_bti_enabled())
		fprintf(out, "\thint\t34 // bti c\n");
	if (got)
		fprintf(out, "\tadrp\tx16, :got:%s\n"
			"\tldr\tx16, [x16, :got_lo12:%s]\n"
			"\tldr\tx16, [x16, " HOST_WIDE_INT_PRINT_DEC "]\n",
			object.c_str(), object.c_str(), offset);
	else
		fprintf(out, "\tadrp\tx16, %s\n"
			"\tldr\tx16, [x16, :lo12:%s]\n", at.c_str(), at.c_str());
	fprintf(out, "\tbr\tx16\n");
	return true;
}

/*
 * PC-relative references in a variant (gcc/inline.cc).  The small code
 * model reaches a symbol with adrp (its 4 KiB page, relative to the
 * instruction's page), then an add or load of :lo12:, which does not
 * depend on where the code runs; the GOT is reached the same way.  So
 * each (high ...) is an adrp to relocate, labelled before the
 * instruction; lo_sum needs nothing.  Anything else that names a symbol
 * (adr or literal loads of the tiny model, TLS sequences) is refused.
 */
int mv_arch_pc_relative(rtx_insn *insn, mv_arch_reloc *r)
{
	int high = 0, other = 0;
	subrtx_iterator::array_type array;
	FOR_EACH_SUBRTX(it, array, PATTERN(insn), ALL) {
		const_rtx x = *it;
		if (GET_CODE(x) == HIGH) {
			high++;
			it.skip_subrtxes();
		} else if (GET_CODE(x) == LO_SUM) {
			it.skip_subrtxes();
		} else if (GET_CODE(x) == SYMBOL_REF || GET_CODE(x) == LABEL_REF) {
			other++;
		}
	}
	if (!high && !other)
		return 0;
	if (other || high != 1)
		return -1;
	r->kind = MV_RELOC_AARCH64_ADRP;
	r->after = false;
	r->field = 0;
	return 1;
}

/* bl and b are one instruction, ret one more; sizes round up to whole
 * instructions. */
unsigned mv_arch_call_len(rtx_insn *)
{
	return 4;
}

unsigned mv_arch_pad_bytes(unsigned, bool tail, unsigned size)
{
	size = (size + 3) & ~3u;
	return size <= 4 ? 0 : size - 4 + (tail ? 4 : 0);
}

/* gas has no .nops for AArch64 and .rept needs its count at once; .fill
 * takes it at the end (objdump shows the nops as .word: data mapping).
 * GCC picks the far form of a tbz, cbz or b.cond whose target may be out
 * of reach from its estimate of the code in between, 4 bytes a line of
 * an asm statement: a line for each NOP there may be keeps the estimate
 * an upper bound (tests/e2e/far_branches.c). */
std::string mv_arch_nops(const std::string &bytes, unsigned least, unsigned most)
{
	std::string text;
	unsigned lines = 1, first = MAX(8u, (least + 3) & ~3u);
	/* more than one NOP: a jump over the rest first, so that the
	 * padding runs one instruction (runtime/region.c); one .fill per
	 * length there may be, as a .fill's value must be known at once */
	for (unsigned n = first; n <= most; n += 4, lines++)
		text += "\t.fill (" + bytes + " == " + std::to_string(n) + ") & 1, 4, " +
			std::to_string(0x14000000 | n / 4) + "\n";      /* b .+n */
	std::string jumps = first <= most ? "(" + bytes + " >= " + std::to_string(first) +
				") & (" + bytes + " <= " + std::to_string(most) + ") & 1" : "0";
	text += "\t.fill " + bytes + "/4 - (" + jumps + "), 4, 0xd503201f";
	for (; lines * 4 < most; lines++)
		text += "\n";
	return text;
}
