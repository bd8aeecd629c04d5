/*
 * Patch points in the generated code.
 *
 * multiverse_fnptr_calls (after expand): a call through a function-pointer
 * switch normally loads the pointer into a register and calls through it,
 * a 2-byte instruction that cannot become a 5-byte direct call.  Rewrite
 * the call to go through the switch in memory (call *fp(%rip), 6 bytes) so
 * commit can turn it into a direct call of the same length.  The pointer
 * is then read at the call, which is when C reads it too.
 *
 * multiverse_sites (just before branch shortening, when the code no longer
 * changes):
 *   - at the entry of each multiversed generic, plant the patch area: one
 *     5-byte NOP instruction that commit overwrites with a jmp to the
 *     selected variant, so calls the plugin never saw (function pointers,
 *     assembly) reach it too.  It comes before any label of the body, so
 *     no jump inside the function can land on it, and after an endbr64;
 *   - put a local label on every direct call and tail call to a
 *     multiversed function, and on every call or tail call through a
 *     function-pointer switch, for the site descriptors;
 *   - keep tail calls 5 bytes long.  Gas shortens `jmp f` to a 2-byte jmp
 *     when f binds locally and lies in the caller's section: a generic's
 *     tail call to itself, or calls within a section the user gave.  Such
 *     a jump cannot reach a variant, so it is sent to a hidden weak alias
 *     of f instead, which gas must leave to the linker.
 */
#include "multiverse.h"

#include <map>
#include <set>

namespace {

/* x86-64: the single 5-byte NOP the runtime expects at the entry. */
const char entry_nop[] = ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00";

unsigned next_label = 1;

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
	if (!MEM_P(x) || !MEM_EXPR(x) || GET_CODE(XEXP(x, 0)) == SYMBOL_REF)
		return NULL_TREE;
	tree base = get_base_address(MEM_EXPR(x));
	return base && mv_is_fnptr_switch(base) ? base : NULL_TREE;
}

void count_store(rtx dest, const_rtx, void *data)
{
	if (REG_P(dest))
		(*(std::map<unsigned, int> *)data)[REGNO(dest)]++;
}

struct fnptr_call_pass : public rtl_opt_pass {
	fnptr_call_pass(gcc::context *ctxt) : rtl_opt_pass(data, ctxt) {}
	static const pass_data data;

	unsigned int execute(function *) final override
	{
		if (!mv_unit_uses_multiverse)
			return 0;
		std::map<unsigned, int> sets;
		std::map<unsigned, rtx> loads;
		std::map<unsigned, tree> indirect_loads;
		std::set<tree> warned;
		for (rtx_insn *i = get_insns(); i; i = NEXT_INSN(i)) {
			if (!INSN_P(i))
				continue;
			note_stores(i, count_store, &sets);
			rtx set = single_set(i);
			if (!set || !REG_P(SET_DEST(set)))
				continue;
			if (is_fnptr_switch_mem(SET_SRC(set)))
				loads[REGNO(SET_DEST(set))] = SET_SRC(set);
			else if (tree var = fnptr_switch_behind(SET_SRC(set)))
				indirect_loads[REGNO(SET_DEST(set))] = var;
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
			auto l = loads.find(REGNO(*addr));
			auto g = indirect_loads.find(REGNO(*addr));
			if (g != indirect_loads.end() && !warned.count(g->second)) {
				warned.insert(g->second);
				warning_at(INSN_LOCATION(i), 0,
					   "calls through multiverse function pointer "
					   "%qD go through the GOT in position-independent "
					   "code and stay indirect after commit; declare it "
					   "%<static%> or with hidden visibility", g->second);
			}
			if (l == loads.end() || sets[REGNO(*addr)] != 1)
				continue;
			tree var = SYMBOL_REF_DECL(XEXP(l->second, 0));
			if (!validate_change(i, addr, copy_rtx(l->second), 0))
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

/* The multiversed function or fn-pointer switch a call goes to, if any. */
tree call_target(rtx_insn *insn)
{
	rtx call = get_call_rtx_from(insn);
	if (!call || !MEM_P(XEXP(call, 0)))
		return NULL_TREE;
	rtx addr = XEXP(XEXP(call, 0), 0);
	if (GET_CODE(addr) == SYMBOL_REF) {
		tree d = SYMBOL_REF_DECL(addr);
		return d && mv_is_function(d) ? d : NULL_TREE;
	}
	if (MEM_P(addr)) {
		/* through a switch in memory, or through the GOT (-fno-plt) */
		subrtx_iterator::array_type array;
		FOR_EACH_SUBRTX(it, array, XEXP(addr, 0), ALL) {
			if (GET_CODE(*it) != SYMBOL_REF || !SYMBOL_REF_DECL(*it))
				continue;
			tree d = SYMBOL_REF_DECL(*it);
			if (mv_is_fnptr_switch(d) || mv_is_function(d))
				return d;
		}
	}
	return NULL_TREE;
}

void emit_asm_before(rtx_insn *at, const std::string &text, location_t loc)
{
	rtx pat = gen_rtx_ASM_INPUT_loc(VOIDmode, ggc_strdup(text.c_str()), loc);
	emit_insn_before(pat, at);
}

bool is_endbr(rtx_insn *insn)
{
	int code = recog_memoized(insn);
	return code >= 0 && strstr(insn_data[code].name, "endbr");
}

void plant_entry(mv_function &f)
{
	unsigned n = next_label++;
	std::string text = ".LMVE" + std::to_string(n) + ":\n\t" + entry_nop;
	rtx pat = gen_rtx_ASM_INPUT_loc(VOIDmode, ggc_strdup(text.c_str()),
					DECL_SOURCE_LOCATION(f.decl));
	rtx_insn *first = get_insns();
	rtx_insn *i = first;
	while (i && !INSN_P(i) && !LABEL_P(i))
		i = NEXT_INSN(i);
	f.entry_after_endbr = i && INSN_P(i) && is_endbr(i);
	if (f.entry_after_endbr)
		emit_insn_after(pat, i);
	else
		emit_insn_before(pat, first);
	f.entry_label = n;
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

struct sites_pass : public rtl_opt_pass {
	sites_pass(gcc::context *ctxt) : rtl_opt_pass(data, ctxt) {}
	static const pass_data data;

	unsigned int execute(function *) final override
	{
		if (!mv_unit_uses_multiverse)
			return 0;
		if (mv_is_function(current_function_decl)) {
			mv_function *f = mv_find_function(current_function_decl);
			if (f)
				plant_entry(*f);
		}
		for (rtx_insn *i = get_insns(); i; i = NEXT_INSN(i)) {
			if (!CALL_P(i))
				continue;
			tree callee = call_target(i);
			if (!callee)
				continue;
			if (TREE_CODE(callee) == FUNCTION_DECL) {
				if (rtx sym = long_jump_target(i, callee)) {
					rtx call = get_call_rtx_from(i);
					validate_change(i, &XEXP(XEXP(call, 0), 0),
							sym, 0);
				}
			}
			unsigned n = next_label++;
			emit_asm_before(i, ".LMVS" + std::to_string(n) + ":",
					INSN_LOCATION(i));
			mv_sites.push_back({ n, callee });
			mv_keep(callee);
		}
		return 0;
	}
};

const pass_data sites_pass::data = {
	RTL_PASS, "multiverse_sites", OPTGROUP_NONE, TV_NONE,
	0, 0, 0, 0, 0
};

} // namespace

opt_pass *mv_make_fnptr_call_pass(gcc::context *ctxt)
{
	return new fnptr_call_pass(ctxt);
}

opt_pass *mv_make_sites_pass(gcc::context *ctxt)
{
	return new sites_pass(ctxt);
}
