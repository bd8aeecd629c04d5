/* SPDX-License-Identifier: MIT */
/*
 * The compile report, in the spirit of -fopt-info: for each multiversed
 * function of the unit, the switches it is specialized on, the variants
 * made and merged, the switches it reads that are not specialized and
 * why, the bytes of code its variants add, which variants may be copied
 * into call sites (or why not: inline.cc), and the size of its call sites
 * in the unit, padding included.
 *
 *   -fplugin-arg-multiverse-report            text on stderr
 *   -fplugin-arg-multiverse-report=FILE       text, appended to FILE
 *   -fplugin-arg-multiverse-report-json[=FILE] JSON, one object per line
 *
 * Appending lets the units of one build share a file.  A text line:
 *   app.c:12:5: multiverse: 'lock' on 'smp' (bool): 2 variants made, ...
 * The bytes are the instruction lengths GCC computes before final,
 * which are the ones it emits.
 */
#include "multiverse.h"
#include "descriptor.h"
#include "json-string.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <set>

const char *mv_report_file;
bool mv_report_json;
std::map<const_tree, unsigned> mv_code_bytes;
/* Functions whose size is an estimate even optimized: GCC counts an asm
 * statement as if each of its lines were the longest instruction. */
static std::set<const_tree> sized_by_estimate;

namespace {

std::string guards_text(const mv_clause &c)
{
	std::string out;
	for (const mv_range &r : c) {
		if (!out.empty())
			out += " and ";
		out += mv_guard_text(mv_switch_name(r.var), r.low, r.high,
				     mv_is_fnptr_switch(r.var));
	}
	return out;
}

unsigned bytes_of(tree variant)
{
	auto b = mv_code_bytes.find(variant);
	return b == mv_code_bytes.end() ? 0 : b->second;
}

const mv_inline_info &inlining(tree variant)
{
	return mv_inlinable[variant];
}

/* The unit's calls of f, and how many of them are padded. */
std::pair<unsigned, unsigned> calls_of(const mv_function &f)
{
	unsigned n = 0, padded = 0;
	for (const mv_site &s : mv_sites)
		if (s.callee == f.decl) {
			n++;
			padded += s.pad != 0;
		}
	return { n, padded };
}

struct numbers {
	unsigned kept, clauses, bytes;
};

/* Whether f's sizes are the ones in the object (else upper bounds). */
bool exact(const mv_function &f)
{
	if (!optimize)
		return false;
	for (const mv_variant &v : f.variants)
		if (TREE_ASM_WRITTEN(v.decl) && sized_by_estimate.count(v.decl))
			return false;
	return true;
}

numbers count(const mv_function &f)
{
	numbers n = { 0, 0, 0 };
	for (const mv_variant &v : f.variants) {
		if (!TREE_ASM_WRITTEN(v.decl))
			continue;
		n.kept++;
		n.clauses += v.clauses.size();
		n.bytes += bytes_of(v.decl);
	}
	return n;
}

/* What calls through function-pointer switches may copy of a plain
 * function (MV_FN_PLAIN). */
std::string plain_text(const mv_function &f)
{
	if (!mv_is_plain(f) || !mv_inlinable.count(f.decl))
		return "";
	const mv_inline_info &in = mv_inlinable[f.decl];
	if (in.why == MV_INLINE_OK)
		return "; inlinable through function-pointer switches, " +
			std::to_string(in.size) + " bytes to copy";
	return std::string("; not inlinable through function-pointer switches: ") +
		mv_inline_why(in.why);
}

void write_text(FILE *out, const mv_function &f)
{
	expanded_location at = expand_location(DECL_SOURCE_LOCATION(f.decl));
	const char *name = mv_name(f.decl);
	numbers n = count(f);
	fprintf(out, "%s:%d:%d: multiverse: '%s'", at.file, at.line, at.column, name);
	if (!f.generic_only.empty()) {
		fprintf(out, ": only the generic: %s%s\n", f.generic_only.c_str(),
			plain_text(f).c_str());
	} else if (f.specialized.empty()) {
		fprintf(out, ": reads no switch it can be specialized on; only the generic%s\n",
			plain_text(f).c_str());
	} else {
		std::string on;
		for (const std::string &s : f.specialized)
			on += (on.empty() ? "" : ", ") + s;
		fprintf(out, " on %s: %u variants made, %u merged into others, %u "
			"kept; %s%u bytes of code added\n", on.c_str(), f.made,
			f.made - n.kept, n.kept, exact(f) ? "" : "at most ", n.bytes);
		for (const mv_variant &v : f.variants) {
			if (!TREE_ASM_WRITTEN(v.decl))
				continue;
			std::string g;
			for (const mv_clause &c : v.clauses)
				g += (g.empty() ? "" : " or ") + guards_text(c);
			const mv_inline_info &in = inlining(v.decl);
			std::string inl = in.why == MV_INLINE_OK ?
				"; inlinable, " + std::to_string(in.size) + " bytes to copy" :
				std::string("; not inlinable: ") + mv_inline_why(in.why);
			fprintf(out, "%s:%d:%d: multiverse: '%s': variant for %s: %s%u bytes%s\n",
				at.file, at.line, at.column, name, g.c_str(), exact(f) ? "" : "at most ",
				bytes_of(v.decl), inl.c_str());
		}
	}
	auto calls = calls_of(f);
	if (calls.second)
		fprintf(out, "%s:%d:%d: multiverse: '%s': %u of its %u calls in this unit "
			"padded to %u bytes\n", at.file, at.line, at.column, name,
			calls.second, calls.first, mv_site_size(f.decl));
	for (auto &d : f.dynamic)
		fprintf(out, "%s:%d:%d: multiverse: '%s': '%s' not specialized: %s\n",
			at.file, at.line, at.column, name, d.first.c_str(),
			d.second.c_str());
}

void write_json(FILE *out, const mv_function &f)
{
	expanded_location at = expand_location(DECL_SOURCE_LOCATION(f.decl));
	numbers n = count(f);
	fprintf(out, "{\"file\": %s, \"line\": %d, \"column\": %d, \"function\": %s, "
		"\"switches\": [", mv_json_string(at.file).c_str(), at.line, at.column,
		mv_json_string(mv_name(f.decl)).c_str());
	for (size_t i = 0; i < f.specialized.size(); i++)
		fprintf(out, "%s%s", i ? ", " : "", mv_json_string(f.specialized[i]).c_str());
	fputs("], \"domains\": [", out);
	for (size_t i = 0; i < f.domains.size(); i++)
		fprintf(out, "%s%s", i ? ", " : "", f.domains[i].c_str());
	fprintf(out, "], \"variants_made\": %u, \"variants_merged\": %u, "
		"\"bytes_added\": %u, \"bytes_exact\": %s, \"variants\": [", f.made,
		f.made - n.kept, n.bytes, exact(f) ? "true" : "false");
	bool first = true;
	for (const mv_variant &v : f.variants) {
		if (!TREE_ASM_WRITTEN(v.decl))
			continue;
		const mv_inline_info &in = inlining(v.decl);
		fprintf(out, "%s{\"symbol\": %s, \"bytes\": %u, \"inlinable\": %s, "
			"\"inline_bytes\": ", first ? "" : ", ",
			mv_json_string(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(v.decl))).c_str(),
			bytes_of(v.decl), in.why == MV_INLINE_OK ? "true" : "false");
		if (in.why == MV_INLINE_OK)
			fprintf(out, "%u, \"not_inlinable\": null", in.size);
		else
			fprintf(out, "null, \"not_inlinable\": %s",
				mv_json_string(mv_inline_why(in.why)).c_str());
		fputs(", \"guards\": [", out);
		for (size_t i = 0; i < v.clauses.size(); i++)
			fprintf(out, "%s%s", i ? ", " : "", mv_json_string(guards_text(v.clauses[i])).c_str());
		fputs("]}", out);
		first = false;
	}
	fputs("], \"not_specialized\": [", out);
	for (size_t i = 0; i < f.dynamic.size(); i++)
		fprintf(out, "%s{\"switch\": %s, \"why\": %s}", i ? ", " : "",
			mv_json_string(f.dynamic[i].first).c_str(), mv_json_string(f.dynamic[i].second).c_str());
	auto calls = calls_of(f);
	auto in = mv_is_plain(f) ? mv_inlinable.find(f.decl) : mv_inlinable.end();
	if (in == mv_inlinable.end())
		fputs("], \"plain_inlinable\": null, \"plain_inline_bytes\": null, "
		      "\"plain_not_inlinable\": null", out);
	else if (in->second.why == MV_INLINE_OK)
		fprintf(out, "], \"plain_inlinable\": true, \"plain_inline_bytes\": %u, "
			"\"plain_not_inlinable\": null", in->second.size);
	else
		fprintf(out, "], \"plain_inlinable\": false, \"plain_inline_bytes\": null, "
			"\"plain_not_inlinable\": %s",
			mv_json_string(mv_inline_why(in->second.why)).c_str());
	fprintf(out, ", \"generic_only\": %s, \"calls\": %u, \"padded_calls\": %u, "
		"\"site_size\": %u}\n",
		f.generic_only.empty() ? "null" : mv_json_string(f.generic_only).c_str(),
		calls.first, calls.second, mv_site_size(f.decl));
}

/* Each function's size as shorten_branches laid it out, alignment and
 * all: the address after its last instruction, less what GCC counts for
 * the call-site labels sites.cc plants (an asm statement is counted as
 * the longest instruction; a label takes no byte), and of the NOPs that
 * pad call sites, whose size is chosen at the end of the unit and added
 * then (mv_choose_padding()).  Optimizing, the
 * result is the symbol's size in the object, which tests/report/check.py
 * compares; at -O0 GCC does not shorten branches, which the assembler
 * then does, so the size is an upper bound ("at most"), and so is that
 * of a function with an asm statement. */
const pass_data measure_data = {
	RTL_PASS, "multiverse_measure", OPTGROUP_NONE, TV_NONE, 0, 0, 0, 0, 0
};

struct measure_pass : public rtl_opt_pass {
	measure_pass(gcc::context *ctxt) : rtl_opt_pass(measure_data, ctxt) {}

	bool gate(function *) final override { return mv_report_file != NULL; }

	unsigned int execute(function *) final override
	{
		int end = 0, labels = 0;
		if (!INSN_ADDRESSES_SET_P())
			return 0;
		for (rtx_insn *i = get_insns(); i; i = NEXT_INSN(i)) {
			if (!INSN_P(i) || (unsigned)INSN_UID(i) >= INSN_ADDRESSES_SIZE())
				continue;
			end = MAX(end, INSN_ADDRESSES(INSN_UID(i)) + get_attr_length(i));
			rtx p = PATTERN(i);
			if (GET_CODE(p) == ASM_INPUT && (!strncmp(XSTR(p, 0), ".LMV", 4) ||
							  mv_is_padding(XSTR(p, 0))))
				labels += get_attr_length(i);
			else if ((asm_noperands(p) >= 0 || GET_CODE(p) == ASM_INPUT) &&
				 get_attr_length(i))
				sized_by_estimate.insert(current_function_decl);
		}
		mv_code_bytes[current_function_decl] = end - labels;
		return 0;
	}
};

} // namespace

opt_pass *mv_make_measure_pass(gcc::context *ctxt)
{
	return new measure_pass(ctxt);
}

void mv_write_report(void)
{
	if (!mv_report_file || mv_functions.empty())
		return;
	/* The unit's report is built whole and appended with one write, so
	 * that units compiled in parallel into one file do not interleave. */
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out) {
		error("multiverse: cannot build the report: %m");
		return;
	}
	/* in the order of the source */
	std::vector<const mv_function *> order;
	for (const mv_function &f : mv_functions)
		order.push_back(&f);
	std::stable_sort(order.begin(), order.end(), [](const mv_function *a,
							 const mv_function *b) {
		return DECL_SOURCE_LOCATION(a->decl) < DECL_SOURCE_LOCATION(b->decl);
	});
	for (const mv_function *f : order)
		(mv_report_json ? write_json : write_text)(out, *f);
	fclose(out);
	int fd = *mv_report_file ? open(mv_report_file, O_WRONLY | O_APPEND | O_CREAT, 0666) : 2;
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		error("multiverse: cannot write the report to %qs: %m",
		      *mv_report_file ? mv_report_file : "stderr");
	if (fd > 2)
		close(fd);
	free(text);
}
