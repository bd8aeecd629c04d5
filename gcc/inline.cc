/* SPDX-License-Identifier: MIT */
/*
 * Inlinable variants and padded call sites.
 *
 * multiverse_inline (right after branch shortening, when every instruction
 * has its final place and length): for each variant, decides whether the
 * runtime may copy its code into a call site instead of calling it, and
 * labels what the descriptor must say about that code (descriptors.cc):
 *   - where the copy starts (after a landing pad) and ends (before the
 *     return, which must be the variant's last and only one);
 *   - each PC-relative field in between, which the runtime adjusts for
 *     the copy's address (the architecture says which forms exist, in
 *     gcc/arch/).
 * A function without variants (a plain one, MV_FN_PLAIN) is analysed the
 * same way from after its entry patch area, so that a call through a
 * function-pointer switch pointing to it can receive its code.
 * A variant qualifies only if its final code makes no call, has no asm
 * statement that emits code (an empty one, a compiler barrier, is fine),
 * never touches the stack pointer or the frame (so no frame, no saved
 * register, no red zone, no stack argument: the caller's unwind
 * information stays true across the copy), and has no branch that may
 * leave it (jump tables, computed gotos, a cold part).  Otherwise the
 * descriptor says why not (MV_INLINE_*), and so does the report.
 *
 * Padded call sites: sites.cc puts padding before each call (NOPs, the
 * first a jump over the others where there are more: arch/), as many
 * bytes as an assembler symbol says that mv_choose_padding() sets at
 * the end of the unit, when every variant the unit compiles is analysed
 * (GCC compiles the variants after their callers).  The size N of each call site to a
 * function, call included, is
 *   - N from the declaration's multiverse("inline", N), if it says;
 *   - else, if this unit compiles the function's variants, the largest
 *     estimated size of an inlinable one (so a function whose variants
 *     cannot be copied gets no padding);
 *   - else the plugin argument inline-size=N (default 0: no padding).
 * The padding comes before the call, so the call stays the site's last
 * instruction and a return address never points inside the region.
 *
 *   gcc -fplugin=multiverse.so -fplugin-arg-multiverse-inline-size=16 ...
 */
#include "multiverse.h"
#include "arch.h"
#include "descriptor.h"
#include "inline-why.h"

#include <set>

std::map<const_tree, mv_inline_info> mv_inlinable;
unsigned mv_default_inline_size;

const char *mv_inline_why(unsigned why)
{
	return mv_inline_why_text(why);
}

/* A multiversed function that got no variant: its code is its only
 * body, and may be copied into the sites of function-pointer switches. */
bool mv_is_plain(const mv_function &f)
{
	return f.variants.empty();
}

bool mv_is_variant(const_tree decl)
{
	for (const mv_function &f : mv_functions)
		for (const mv_variant &v : f.variants)
			if (v.decl == decl)
				return true;
	return false;
}

namespace {

bool mentions_stack(rtx pat)
{
	subrtx_iterator::array_type array;
	FOR_EACH_SUBRTX(it, array, pat, ALL) {
		const_rtx x = *it;
		if (REG_P(x) && (REGNO(x) == STACK_POINTER_REGNUM ||
				 REGNO(x) == HARD_FRAME_POINTER_REGNUM ||
				 REGNO(x) == FRAME_POINTER_REGNUM ||
				 REGNO(x) == ARG_POINTER_REGNUM))
			return true;
		if (GET_RTX_CLASS(GET_CODE(x)) == RTX_AUTOINC)
			return true;
	}
	return false;
}

/* Whether an asm template emits nothing: only blanks.  Such a statement
 * (the compiler barrier asm volatile("" ::: "memory")) constrains the
 * compiler, not the code, so it does not keep a variant from moving. */
bool emits_nothing(const char *text)
{
	while (*text && ISSPACE(*text))
		text++;
	return !*text;
}

/* The asm statement pat holds: ASM_NONE, ASM_EMPTY (a compiler barrier,
 * which refers to nothing whatever its operands name), or ASM_CODE, of
 * which the runtime cannot know what it refers to. */
enum { ASM_NONE, ASM_EMPTY, ASM_CODE };
int asm_statement(rtx pat)
{
	int kind = ASM_NONE;
	subrtx_iterator::array_type array;
	FOR_EACH_SUBRTX(it, array, pat, ALL) {
		const char *text = GET_CODE(*it) == ASM_INPUT ? XSTR(*it, 0) :
				   GET_CODE(*it) == ASM_OPERANDS ? ASM_OPERANDS_TEMPLATE(*it) : NULL;
		if (text)
			kind = MAX(kind, emits_nothing(text) ? ASM_EMPTY : ASM_CODE);
	}
	return kind;
}

/* The entry patch area sites.cc plants in a generic (with the landing
 * pad before it, if it planted that too): the copy starts after it. */
bool is_entry_area(rtx_insn *i)
{
	rtx pat = PATTERN(i);
	return GET_CODE(pat) == ASM_INPUT && strstr(XSTR(pat, 0), ".LMVE");
}

bool is_return(rtx_insn *i)
{
	return JUMP_P(i) && (returnjump_p(i) || ANY_RETURN_P(PATTERN(i)) ||
			     (JUMP_LABEL(i) && ANY_RETURN_P(JUMP_LABEL(i))));
}

/* A label at insn, before or after it.  Branch shortening is done, and
 * final accepts no new instruction after it, only notes; a deleted
 * label's note is one that final prints as the label, and it takes no
 * byte.  Returns the label's assembler name. */
std::string emit_label(rtx_insn *at, bool after)
{
	rtx_code_label *l = gen_label_rtx();
	rtx_insn *n = after ? emit_label_after(l, at) : emit_label_before(l, at);
	PUT_CODE(n, NOTE);
	NOTE_KIND(n) = NOTE_INSN_DELETED_LABEL;
	NOTE_DELETED_LABEL_NAME(n) = NULL;
	char name[32];
	ASM_GENERATE_INTERNAL_LABEL(name, "L", CODE_LABEL_NUMBER(n));
	return name[0] == '*' ? name + 1 : name;
}

/* Why not, when several reasons hold: the first of these. */
const unsigned priority[] = {
	MV_INLINE_CALLS, MV_INLINE_ASM, MV_INLINE_BRANCHES, MV_INLINE_RETURNS,
	MV_INLINE_STACK, MV_INLINE_REFERENCE, MV_INLINE_TOO_LARGE,
};

/* Decides for the current function, a variant; labels nothing unless it
 * qualifies. */
mv_inline_info analyse(void)
{
	mv_inline_info info;
	std::set<unsigned> why;
	rtx_insn *first = NULL, *ret = NULL;
	std::vector<std::pair<rtx_insn *, mv_arch_reloc>> relocs;

	if (crtl->has_bb_partition)
		why.insert(MV_INLINE_BRANCHES);
	for (rtx_insn *i = get_insns(); i; i = NEXT_INSN(i)) {
		if (!NONDEBUG_INSN_P(i))
			continue;
		rtx pat = PATTERN(i);
		if (GET_CODE(pat) == USE || GET_CODE(pat) == CLOBBER)
			continue;
		if (ret)                /* anything after the return */
			why.insert(MV_INLINE_RETURNS);
		if (!first || is_entry_area(i)) {
			first = i;
			if (mv_arch_is_landing_pad(i) || is_entry_area(i))
				continue;
		}
		if (CALL_P(i)) {
			why.insert(MV_INLINE_CALLS);
			continue;
		}
		if (int kind = asm_statement(pat)) {
			if (kind == ASM_CODE)
				why.insert(MV_INLINE_ASM);
			continue;
		}
		if (is_return(i)) {
			if (GET_CODE(pat) != RETURN && GET_CODE(pat) != SIMPLE_RETURN &&
			    !(GET_CODE(pat) == PARALLEL && ANY_RETURN_P(XVECEXP(pat, 0, 0))))
				why.insert(MV_INLINE_RETURNS);     /* conditional */
			if (ret)
				why.insert(MV_INLINE_RETURNS);
			ret = i;
			continue;
		}
		if (mentions_stack(pat))
			why.insert(MV_INLINE_STACK);
		if (JUMP_P(i)) {        /* to a label inside: moves with the code */
			if (tablejump_p(i, NULL, NULL) || computed_jump_p(i) ||
			    !JUMP_LABEL(i) || !LABEL_P(JUMP_LABEL(i)))
				why.insert(MV_INLINE_BRANCHES);
			continue;
		}
		mv_arch_reloc r;
		switch (mv_arch_pc_relative(i, &r)) {
		case -1:
			why.insert(MV_INLINE_REFERENCE);
			break;
		case 1:
			relocs.push_back({ i, r });
			break;
		}
	}
	if (!ret)
		why.insert(MV_INLINE_RETURNS);
	rtx_insn *start = first;
	while (start && (!NONDEBUG_INSN_P(start) || mv_arch_is_landing_pad(start) ||
			 is_entry_area(start)))
		start = NEXT_INSN(start);
	if (why.empty()) {
		if (!INSN_ADDRESSES_SET_P())
			why.insert(MV_INLINE_UNKNOWN);
		else if (INSN_ADDRESSES(INSN_UID(ret)) -
			 INSN_ADDRESSES(INSN_UID(start)) > MV_INLINE_MAX)
			why.insert(MV_INLINE_TOO_LARGE);
	}
	for (unsigned w : priority)
		if (why.count(w)) {
			info.why = w;
			return info;
		}
	if (!why.empty()) {
		info.why = *why.begin();
		return info;
	}

	int from = INSN_ADDRESSES(INSN_UID(start));
	info.start = emit_label(start, false);
	info.end = emit_label(ret, false);
	for (auto &r : relocs)
		info.relocs.push_back({ emit_label(r.first, r.second.after),
					r.second.kind, r.second.field });
	info.size = INSN_ADDRESSES(INSN_UID(ret)) - from;
	info.why = MV_INLINE_OK;
	return info;
}

struct inline_pass : public rtl_opt_pass {
	inline_pass(gcc::context *ctxt) : rtl_opt_pass(data, ctxt) {}
	static const pass_data data;

	unsigned int execute(function *) final override
	{
		if (!mv_unit_uses_multiverse)
			return 0;
		const mv_function *f = mv_find_function(current_function_decl);
		if (!mv_is_variant(current_function_decl) &&
		    !(f && f->entry_label && mv_is_plain(*f)))
			return 0;
		mv_inlinable[current_function_decl] = analyse();
		return 0;
	}
};

const pass_data inline_pass::data = {
	RTL_PASS, "multiverse_inline", OPTGROUP_NONE, TV_NONE, 0, 0, 0, 0, 0
};

} // namespace

opt_pass *mv_make_inline_pass(gcc::context *ctxt)
{
	return new inline_pass(ctxt);
}

/* The size N of call sites to callee (a multiversed function or a
 * function-pointer switch's decl), as the head comment says; *known is
 * false while a variant of a function the unit defines is not analysed
 * yet, which may make it larger. */
static unsigned site_size(tree callee, bool *known)
{
	unsigned n;
	*known = true;
	if (mv_inline_size(callee, &n))
		return n;
	mv_function *f = mv_find_function(callee);
	if (!f || f->variants.empty())
		return mv_default_inline_size;
	unsigned largest = 0;
	for (const mv_variant &v : f->variants) {
		auto i = mv_inlinable.find(v.decl);
		if (i == mv_inlinable.end()) {
			*known = false;
			return mv_default_inline_size;
		}
		if (i->second.why == MV_INLINE_OK)
			largest = MAX(largest, i->second.size);
	}
	return largest;
}

unsigned mv_site_size(tree callee)
{
	bool known;
	return site_size(callee, &known);
}

bool mv_site_size_known(tree callee, unsigned *size)
{
	bool known;
	*size = site_size(callee, &known);
	return known;
}

/* Whether text is the padding of a call site (sites.cc). */
bool mv_is_padding(const char *text)
{
	return strstr(text, ".LMVP") != NULL;   /* its size's symbol */
}

/* At the end of the unit, when every variant it compiles is analysed:
 * the padding of each site, and the code it adds to its function. */
void mv_choose_padding(void)
{
	for (mv_site &s : mv_sites) {
		tree decl = TREE_CODE(s.callee) == FUNCTION_DECL ? s.callee :
			    mv_switch_decl(s.callee);
		s.pad = mv_arch_pad_bytes(s.call_len, s.tail, mv_site_size(decl));
		auto b = mv_code_bytes.find(s.in);
		if (b != mv_code_bytes.end())
			b->second += s.pad;
	}
}
