/*
 * AArch64 hooks of the plugin (plugin/arch.h).
 *
 * Entry: a nop, after a `bti c` if the function has one
 * (-mbranch-protection=bti), which commit overwrites with a b to the
 * variant.
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

#include <map>
#include <set>

const unsigned mv_arch_machine = MV_MACHINE_AARCH64;

const char mv_arch_entry_nop[] = "nop";

bool mv_arch_is_landing_pad(rtx_insn *insn)
{
	int code = recog_memoized(insn);
	return code >= 0 && strstr(insn_data[code].name, "bti");
}

rtx mv_arch_site_target(rtx_insn *, tree)
{
	return NULL_RTX;
}

namespace {

/* The unit's stubs: switch -> stub declaration, in creation order. */
std::map<tree, tree> stub_of;
std::map<tree, tree> switch_of;
std::vector<tree> stubs;

/* The symbols the pass put into calls, by name: what each stands for. */
std::map<std::string, tree> call_symbols;

std::string asm_name(tree decl)
{
	return targetm.strip_name_encoding(
		IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl)));
}

/* The symbol a call through switch sw goes to instead. */
rtx stub_symbol(tree sw)
{
	tree stub = stub_of[sw];
	if (!stub) {
		std::string name = asm_name(sw) + ".mvcall";
		stub = build_decl(DECL_SOURCE_LOCATION(sw), FUNCTION_DECL,
				  get_identifier(name.c_str()),
				  TREE_TYPE(TREE_TYPE(sw)));
		DECL_ARTIFICIAL(stub) = 1;
		TREE_PUBLIC(stub) = 0;
		DECL_EXTERNAL(stub) = 1;
		mv_keep(stub);
		mv_keep(sw);
		stub_of[sw] = stub;
		switch_of[stub] = sw;
		stubs.push_back(stub);
	}
	rtx sym = gen_rtx_SYMBOL_REF(Pmode, ggc_strdup(asm_name(stub).c_str()));
	SYMBOL_REF_FLAGS(sym) |= SYMBOL_FLAG_FUNCTION | SYMBOL_FLAG_LOCAL;
	SET_SYMBOL_REF_DECL(sym, stub);
	call_symbols[asm_name(stub)] = sw;
	return sym;
}

/* A symbol for a direct call of the multiversed function fn.  It carries
 * no declaration, so that -fno-plt does not turn it back into a load from
 * the GOT. */
rtx direct_symbol(rtx orig, tree fn)
{
	rtx sym = gen_rtx_SYMBOL_REF(Pmode, XSTR(orig, 0));
	SYMBOL_REF_FLAGS(sym) = SYMBOL_REF_FLAGS(orig) & SYMBOL_FLAG_FUNCTION;
	call_symbols[XSTR(orig, 0)] = fn;
	mv_keep(fn);
	return sym;
}

/* A register set to the address of a multiversed function (-fno-plt). */
bool function_address(rtx src)
{
	return GET_CODE(src) == SYMBOL_REF && SYMBOL_REF_DECL(src) &&
	       mv_is_function(SYMBOL_REF_DECL(src));
}

struct fnptr_call_pass : public rtl_opt_pass {
	fnptr_call_pass(gcc::context *ctxt) : rtl_opt_pass(data, ctxt) {}
	static const pass_data data;

	unsigned int execute(function *) final override
	{
		if (!mv_unit_uses_multiverse)
			return 0;
		/* Pseudos set once, by a load of a switch or a copy of one. */
		std::map<unsigned, int> sets;
		std::map<unsigned, tree> loads;
		std::map<unsigned, rtx> addresses;
		std::map<unsigned, unsigned> copies;
		for (rtx_insn *i = get_insns(); i; i = NEXT_INSN(i)) {
			if (!INSN_P(i))
				continue;
			mv_count_reg_sets(i, sets);
			rtx set = single_set(i);
			if (!set || !REG_P(SET_DEST(set)))
				continue;
			unsigned dst = REGNO(SET_DEST(set));
			if (tree var = mv_switch_read_by(SET_SRC(set)))
				loads[dst] = var;
			else if (function_address(SET_SRC(set)))
				addresses[dst] = SET_SRC(set);
			else if (REG_P(SET_SRC(set)) && !HARD_REGISTER_P(SET_SRC(set)))
				copies[dst] = REGNO(SET_SRC(set));
		}
		for (rtx_insn *i = get_insns(); i; i = NEXT_INSN(i)) {
			if (!CALL_P(i))
				continue;
			rtx call = get_call_rtx_from(i);
			if (!call || !MEM_P(XEXP(call, 0)))
				continue;
			rtx *addr = &XEXP(XEXP(call, 0), 0);
			if (!REG_P(*addr) || HARD_REGISTER_P(*addr))
				continue;
			unsigned r = REGNO(*addr);
			for (int hops = 0; hops < 8 && sets[r] == 1 && !loads.count(r) &&
			     !addresses.count(r) && copies.count(r); hops++)
				r = copies[r];
			if (sets[r] == 1 && addresses.count(r)) {
				rtx a = addresses[r];
				validate_change(i, addr, direct_symbol(a, SYMBOL_REF_DECL(a)), 0);
				continue;
			}
			if (sets[r] != 1 || !loads.count(r))
				continue;
			tree var = loads[r];
			if (!validate_change(i, addr, stub_symbol(var), 0))
				warning_at(INSN_LOCATION(i), 0,
					   "this call through multiverse function "
					   "pointer %qD cannot be made patchable; it "
					   "stays indirect after commit", var);
		}
		return 0;
	}
};

const pass_data fnptr_call_pass::data = {
	RTL_PASS, "multiverse_fnptr_calls", OPTGROUP_NONE, TV_NONE,
	0, 0, 0, 0, 0
};

} // namespace

opt_pass *mv_make_fnptr_call_pass(gcc::context *ctxt)
{
	return new fnptr_call_pass(ctxt);
}

tree mv_arch_call_symbol(rtx sym)
{
	auto s = call_symbols.find(XSTR(sym, 0));
	return s == call_symbols.end() ? NULL_TREE : s->second;
}

/* The stubs, after the unit's code.  A switch another module may define
 * is reached through its GOT entry, as GCC itself would load it. */
void mv_arch_finish_unit(FILE *out)
{
	for (tree stub : stubs) {
		tree sw = switch_of[stub];
		std::string name = asm_name(stub), var = asm_name(sw);
		bool got = flag_pic && !targetm.binds_local_p(sw);

		fprintf(out, "\t.text\n\t.p2align 2\n\t.type\t%s, %%function\n%s:\n",
			name.c_str(), name.c_str());
		if (got)
			fprintf(out, "\tadrp\tx16, :got:%s\n"
				"\tldr\tx16, [x16, :got_lo12:%s]\n"
				"\tldr\tx16, [x16]\n", var.c_str(), var.c_str());
		else
			fprintf(out, "\tadrp\tx16, %s\n"
				"\tldr\tx16, [x16, :lo12:%s]\n", var.c_str(), var.c_str());
		fprintf(out, "\tbr\tx16\n\t.size\t%s, .-%s\n", name.c_str(), name.c_str());
	}
}
