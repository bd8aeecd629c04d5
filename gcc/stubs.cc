/* SPDX-License-Identifier: MIT */
/*
 * Stubs for calls through function-pointer switches, where a call through
 * memory is not a form the runtime can patch (AArch64 always, x86-64 when
 * the switch is reached through the GOT).  The fnptr-call pass sends such
 * a call to the switch's stub, which jumps through the switch:
 *
 *       call sw.mvcall            sw.mvcall:   (gcc/arch/: load sw, jump)
 *
 * The call site is then a direct call, which commit retargets to the
 * function the switch holds; the runtime checks that the stub jumps
 * through the switch before it writes the site.  The stubs are local to
 * the unit and go into a section of their own, after its code: within one
 * section, gas may shorten an x86-64 jmp to a local symbol to 2 bytes,
 * which commit could not retarget.
 *
 * The symbols the pass puts into calls are also remembered here with
 * what they stand for (mv_call_symbol), for the sites pass.
 */
#include "multiverse.h"
#include "arch.h"

#include <map>

namespace {

/* switch -> stub declaration, in creation order */
std::map<tree, tree> stub_of;
std::vector<std::pair<tree, tree>> stubs;      /* (stub, switch) */

/* symbol name -> the switch or multiversed function it stands for */
std::map<std::string, tree> call_symbols;

std::string asm_name(tree decl)
{
	return targetm.strip_name_encoding(
		IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl)));
}

} // namespace

void mv_error_call_unbound(rtx_insn *call, tree sw, const char *why)
{
	auto_diagnostic_group g;
	error_at(INSN_LOCATION(call), "this call through multiverse function "
		 "pointer %qs cannot be bound by commit %s; a call through a "
		 "switch goes where the last commit bound it, so it must be one "
		 "the runtime can rewrite", mv_switch_name(sw), why);
	mv_note_switch_declared(sw);
}

bool mv_switch_via_got(tree sw)
{
	HOST_WIDE_INT offset;
	return flag_pic && !targetm.binds_local_p(mv_switch_object(sw, &offset));
}

rtx mv_stub_symbol(tree sw)
{
	tree stub = stub_of[sw];
	if (!stub) {
		HOST_WIDE_INT offset;
		tree object = mv_switch_object(sw, &offset);
		std::string name = asm_name(object) +
			(offset ? "." + std::to_string(offset) : "") + ".mvcall";
		stub = build_decl(DECL_SOURCE_LOCATION(mv_switch_decl(sw)), FUNCTION_DECL,
				  get_identifier(name.c_str()),
				  TREE_TYPE(TREE_TYPE(sw)));
		DECL_ARTIFICIAL(stub) = 1;
		TREE_PUBLIC(stub) = 0;
		DECL_EXTERNAL(stub) = 1;
		mv_keep(stub);
		mv_keep(sw);
		stub_of[sw] = stub;
		stubs.push_back({ stub, sw });
	}
	rtx sym = gen_rtx_SYMBOL_REF(Pmode, ggc_strdup(asm_name(stub).c_str()));
	SYMBOL_REF_FLAGS(sym) |= SYMBOL_FLAG_FUNCTION | SYMBOL_FLAG_LOCAL;
	SET_SYMBOL_REF_DECL(sym, stub);
	call_symbols[asm_name(stub)] = sw;
	return sym;
}

void mv_note_call_symbol(rtx sym, tree stands_for)
{
	call_symbols[XSTR(sym, 0)] = stands_for;
	mv_keep(stands_for);
}

tree mv_call_symbol(rtx sym)
{
	auto s = call_symbols.find(XSTR(sym, 0));
	return s == call_symbols.end() ? NULL_TREE : s->second;
}

/* A switch in an object another module may define is reached through
 * the object's GOT entry, as GCC itself would load it. */
void mv_write_stubs(FILE *out)
{
	if (stubs.empty())
		return;
	/* GCC's idea of the current section must stay true */
	fprintf(out, "\t.pushsection\t.text.multiverse.stubs,\"ax\",@progbits\n");
	for (auto &[stub, sw] : stubs) {
		std::string name = asm_name(stub);
		HOST_WIDE_INT offset;
		tree object = mv_switch_object(sw, &offset);
		fprintf(out, "\t.type\t%s, %%function\n", name.c_str());
		if (mv_arch_write_stub(out, name, sw, asm_name(object), offset,
				       mv_switch_via_got(sw)))
			fprintf(out, "\t.size\t%s, .-%s\n", name.c_str(), name.c_str());
	}
	fprintf(out, "\t.popsection\n");
}
