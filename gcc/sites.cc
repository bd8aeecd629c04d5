/* SPDX-License-Identifier: MIT */
/*
 * Patch points in the generated code.  What an architecture needs on top
 * (the NOP, landing pads, patchable forms of calls) is in gcc/arch/.
 *
 * multiverse_sites (just before branch shortening, when the code no longer
 * changes):
 *   - at the entry of each multiversed generic, plant the patch area: one
 *     NOP instruction that commit overwrites with a jump to the selected
 *     variant, so calls the plugin never saw (function pointers, assembly)
 *     reach it too.  It comes before any label of the body, so no jump
 *     inside the function can land on it, and after a landing pad, or
 *     in user space after a NOP a debugger's breakpoint may cover;
 *   - put a local label on every direct call and tail call to a
 *     multiversed function, and on every call or tail call through a
 *     function-pointer switch, for the site descriptors, after the
 *     NOPs that pad the site to the size inline.cc chooses.
 */
#include "multiverse.h"
#include "arch.h"
#include "descriptor.h"

#include <algorithm>
#include <map>
#include <set>

namespace {

unsigned next_label = 1;

bool is_one_of(tree sw, const std::vector<tree> &sws)
{
	return sw && std::find(sws.begin(), sws.end(), sw) != sws.end();
}

/* The multiversed function or fn-pointer switch a call goes to, if any. */
tree call_target(rtx_insn *insn)
{
	rtx call = get_call_rtx_from(insn);
	if (!call || !MEM_P(XEXP(call, 0)))
		return NULL_TREE;
	rtx addr = XEXP(XEXP(call, 0), 0);
	if (GET_CODE(addr) == SYMBOL_REF) {
		tree d = SYMBOL_REF_DECL(addr);
		if (tree t = mv_call_symbol(addr))
			return t;
		return d && mv_is_function(d) ? d : NULL_TREE;
	}
	if (MEM_P(addr)) {
		/* through a switch in memory, or through the GOT (-fno-plt) */
		if (tree sw = mv_switch_read_by(addr))
			return sw;
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

void plant_entry(mv_function &f)
{
	unsigned n = next_label++;
	std::string text = ".LMVE" + std::to_string(n) + ":\n\t" + mv_arch_entry_nop;
	rtx_insn *first = get_insns();
	rtx_insn *i = first;
	while (i && !INSN_P(i) && !LABEL_P(i))
		i = NEXT_INSN(i);
	bool starts = i && INSN_P(i);
	const char *pad = starts ? mv_arch_pad_before_entry(i) : NULL;
	bool after_pad = starts && !pad && mv_arch_is_landing_pad(i);

	/* gdb breaks on a function's first byte when it trusts the unit's
	 * line table, or has none (on AArch64 after a bti c): not on the
	 * entry area, which commit could then not write.  The kernel's
	 * debuggers patch the kernel's way, and its entries pay for no NOP. */
	bool landing_pad = pad || after_pad;
	bool debugger_nop = !mv_kernel && (!landing_pad || mv_arch_debugger_skips_pad);
	if (debugger_nop)
		text = std::string(mv_arch_debugger_nop) + "\n" + text;
	if (pad)
		text = std::string(pad) + "\n" + text;
	rtx pat = gen_rtx_ASM_INPUT_loc(VOIDmode, ggc_strdup(text.c_str()),
					DECL_SOURCE_LOCATION(f.decl));
	if (after_pad)
		emit_insn_after(pat, i);
	else
		emit_insn_before(pat, first);
	f.entry_after_pad = landing_pad || debugger_nop;
	f.entry_after_pad_nop = landing_pad && debugger_nop;
	f.entry_label = n;
}

/* The least and the most padding call i to callee may get: the unit
 * chooses it at its end (mv_choose_padding, mv_site_size), from
 * ("inline", N), or the variants of a function it defines (all
 * specialized before any is compiled to RTL), or else inline-size=N.
 * Known now unless some of those variants are still to be compiled. */
void padding_range(rtx_insn *i, tree callee, unsigned *least, unsigned *most)
{
	tree decl = TREE_CODE(callee) == FUNCTION_DECL ? callee : mv_switch_decl(callee);
	unsigned size = mv_default_inline_size;
	bool known = !decl || mv_site_size_known(decl, &size);
	*least = known ? mv_arch_pad_bytes(mv_arch_call_len(i), SIBLING_CALL_P(i), size) : 0;
	*most = known ? *least : mv_arch_pad_bytes(mv_arch_call_len(i), SIBLING_CALL_P(i),
						   MV_INLINE_MAX);
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
		auto probes = mv_probe_set_in.find(current_function_decl);
		for (rtx_insn *i = get_insns(); i; i = NEXT_INSN(i)) {
			if (!CALL_P(i))
				continue;
			tree callee = call_target(i);
			if (!callee)
				continue;
			if (TREE_CODE(callee) == FUNCTION_DECL) {
				if (rtx sym = mv_arch_site_target(i, callee)) {
					rtx call = get_call_rtx_from(i);
					validate_change(i, &XEXP(XEXP(call, 0), 0),
							sym, 0);
				}
			}
			unsigned n = next_label++, least, most;
			padding_range(i, callee, &least, &most);
			emit_asm_before(i, mv_arch_nops(".LMVP" + std::to_string(n),
							least, most),
					INSN_LOCATION(i));
			emit_asm_before(i, ".LMVS" + std::to_string(n) + ":",
					INSN_LOCATION(i));
			bool in_probe_variant = probes != mv_probe_set_in.end() &&
				is_one_of(callee, probes->second);
			mv_sites.push_back({ n, mv_arch_call_len(i), (bool)SIBLING_CALL_P(i),
					     0, callee, current_function_decl, in_probe_variant });
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

tree mv_switch_read_by(rtx mem)
{
	if (!MEM_P(mem) || !MEM_EXPR(mem) ||
	    (MEM_OFFSET_KNOWN_P(mem) && maybe_ne(MEM_OFFSET(mem), 0)))
		return NULL_TREE;
	tree sw = mv_switch_of(MEM_EXPR(mem));
	return sw && mv_is_fnptr_switch(sw) ? sw : NULL_TREE;
}

rtx mv_reg_defs::single_src(unsigned regno) const
{
	auto n = sets.find(regno);
	auto s = srcs.find(regno);
	return n != sets.end() && n->second == 1 && s != srcs.end() &&
	       s->second.size() == 1 ? s->second[0] : NULL_RTX;
}

namespace {

void count_store(rtx dest, const_rtx, void *data)
{
	if (REG_P(dest))
		((mv_reg_defs *)data)->sets[REGNO(dest)]++;
}

tree switch_loaded_by(rtx mem)
{
	return MEM_P(mem) && MEM_EXPR(mem) ? mv_switch_of(MEM_EXPR(mem)) : NULL_TREE;
}

/* The probe of sws that a call to addr may go through without being a
 * site, if any.  specialize.cc made variants for "set" only where the
 * probe's loaded value goes into nothing but NULL tests and calls, so a
 * call that may call it loads it: as the call's operand, or into the
 * register it calls through, directly or through copies (a few: longer
 * chains are not what expansion makes of those values). */
tree calls_probe_unseen(rtx addr, const mv_reg_defs &defs, const std::vector<tree> &sws,
			int depth = 0)
{
	if (MEM_P(addr)) {
		tree sw = switch_loaded_by(addr);
		return is_one_of(sw, sws) && !is_one_of(mv_switch_read_by(addr), sws) ?
		       sw : NULL_TREE;
	}
	if (!REG_P(addr) || depth > 4)
		return NULL_TREE;
	auto srcs = defs.srcs.find(REGNO(addr));
	if (srcs != defs.srcs.end())
		for (rtx src : srcs->second) {
			if (is_one_of(switch_loaded_by(src), sws))
				return switch_loaded_by(src);
			if (tree sw = REG_P(src) ? calls_probe_unseen(src, defs, sws, depth + 1)
						 : NULL_TREE)
				return sw;
		}
	return NULL_TREE;
}

/* A variant for probe sw set whose call through it could not be made a
 * site would call without the test, through whatever the pointer holds:
 * it is compiled, but never recorded, so commit never selects it. */
void drop_variant(tree decl, tree sw)
{
	for (mv_function &f : mv_functions)
		for (auto v = f.variants.begin(); v != f.variants.end(); v++) {
			if (v->decl != decl)
				continue;
			f.variants.erase(v);
			f.dynamic.push_back({ mv_switch_name(sw),
					      "a call through it in the variant for "
					      "not NULL could not be made a call site; "
					      "that variant is not used" });
			return;
		}
}

/* multiverse_fnptr_calls: hands every call through a pseudo register to
 * the architecture, with what set the register, and checks that every
 * call through a probe in a variant for "set" is a site. */
struct fnptr_call_pass : public rtl_opt_pass {
	fnptr_call_pass(gcc::context *ctxt) : rtl_opt_pass(data, ctxt) {}
	static const pass_data data;

	unsigned int execute(function *) final override
	{
		if (!mv_unit_uses_multiverse)
			return 0;
		mv_reg_defs defs;
		for (rtx_insn *i = get_insns(); i; i = NEXT_INSN(i)) {
			if (!INSN_P(i))
				continue;
			note_stores(i, count_store, &defs);
			rtx set = single_set(i);
			if (set && REG_P(SET_DEST(set)))
				defs.srcs[REGNO(SET_DEST(set))].push_back(SET_SRC(set));
		}
		auto probes = mv_probe_set_in.find(current_function_decl);
		tree unseen = NULL_TREE;
		for (rtx_insn *i = get_insns(); i; i = NEXT_INSN(i)) {
			if (!CALL_P(i))
				continue;
			rtx call = get_call_rtx_from(i);
			if (!call || !MEM_P(XEXP(call, 0)))
				continue;
			rtx *addr = &XEXP(XEXP(call, 0), 0);
			if (REG_P(*addr) && !HARD_REGISTER_P(*addr))
				mv_arch_call_through(i, addr, defs);
			if (probes != mv_probe_set_in.end() && !unseen)
				unseen = calls_probe_unseen(*addr, defs, probes->second);
		}
		if (unseen)
			drop_variant(current_function_decl, unseen);
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

opt_pass *mv_make_sites_pass(gcc::context *ctxt)
{
	return new sites_pass(ctxt);
}
