// SPDX-License-Identifier: MIT
//
// The compile report, as GCC's plugin writes it (gcc/report.cc): for each
// multiversed function of the unit, the switches it is specialized on,
// the variants made and merged, the switches it reads that are not
// specialized and why.  The parts come from the passes that know them
// (attribute.cpp the location, uses.cpp the reasons, specialize.cpp the
// variants made, merge.cpp those kept); MultiverseFinish writes it.
// When the compile goes on to code generation, it is written when the
// AsmPrinter's handlers are done (mv_module_emitted()), with what they
// saw (sites.cpp, inline.cpp): which variants
// may be copied into call sites, or why not, and the calls of each
// function and how many are padded.  Clang's plugin cannot measure code
// before the object is written, so the report gives no bytes
// ("bytes_added": null, "inline_bytes": null in JSON).
#include "multiverse.h"
#include "json-string.h"
#include "inline-why.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>

#include <fcntl.h>
#include <unistd.h>

std::string mv_report_file;
bool mv_report_on, mv_report_json;
std::map<std::string, mv_report_fn> mv_report;
std::map<llvm::Constant *, std::string> mv_switch_names;
bool mv_codegen_follows;
std::map<std::string, unsigned> mv_inline_why;
std::map<std::string, std::pair<unsigned, unsigned>> mv_calls;
std::map<std::string, unsigned> mv_site_size;

namespace {

/* What the AsmPrinter said of a variant: MV_INLINE_*. */
unsigned inlining(const std::string &symbol)
{
	auto w = mv_inline_why.find(symbol);
	return w == mv_inline_why.end() ? MV_INLINE_UNKNOWN : w->second;
}

std::string calls_json(const std::string &name)
{
	if (!mv_codegen_follows)
		return "\"calls\": null, \"padded_calls\": 0, \"site_size\": 0";
	auto c = mv_calls.find(name);
	auto n = mv_site_size.find(name);
	unsigned size = n == mv_site_size.end() ? 0 : n->second;
	/* sized by its variants: the assembler knows N */
	return "\"calls\": " + std::to_string(c == mv_calls.end() ? 0 : c->second.first) +
	       ", \"padded_calls\": " + std::to_string(c == mv_calls.end() ? 0 : c->second.second) +
	       ", \"site_size\": " + (size == MV_SITE_SIZE_ASSEMBLER ? "null" : std::to_string(size));
}

/* What calls through function-pointer switches may copy of a plain
 * function (MV_FN_PLAIN; inline.cpp analyses it under its own name). */
std::string plain_text(const std::string &name, const mv_report_fn &f)
{
	if (!f.kept.empty() || !mv_inline_why.count(name))
		return "";
	unsigned why = inlining(name);
	return why == MV_INLINE_OK ? "; inlinable through function-pointer switches" :
		std::string("; not inlinable through function-pointer switches: ") +
		mv_inline_why_text(why);
}

void text(llvm::raw_ostream &out, const std::string &name, const mv_report_fn &f)
{
	std::string at = f.file + ":" + std::to_string(f.line) + ":" +
			 std::to_string(f.column) + ": multiverse: '" + mv_display_name(name) + "'";
	if (!f.generic_only.empty()) {
		out << at << ": only the generic: " << f.generic_only << plain_text(name, f) << "\n";
	} else if (f.specialized.empty()) {
		out << at << ": reads no switch it can be specialized on; only the generic"
		    << plain_text(name, f) << "\n";
	} else {
		std::string on;
		for (const std::string &s : f.specialized)
			on += (on.empty() ? "" : ", ") + s;
		out << at << " on " << on << ": " << f.made << " variants made, "
		    << f.made - f.kept.size() << " merged into others, " << f.kept.size()
		    << " kept; code size not measured by the Clang plugin\n";
		for (auto &[symbol, guards] : f.kept) {
			std::string g;
			for (const std::string &c : guards)
				g += (g.empty() ? "" : " or ") + c;
			unsigned why = inlining(symbol);
			out << at << ": variant for " << g << "; " << (why == MV_INLINE_OK ?
				std::string("inlinable") : "not inlinable: " +
				std::string(mv_inline_why_text(why))) << "\n";
		}
	}
	for (auto &[sw, why] : f.dynamic)
		out << at << ": '" << sw << "' not specialized: " << why << "\n";
}

void json(llvm::raw_ostream &out, const std::string &name, const mv_report_fn &f)
{
	out << "{\"file\": " << mv_json_string(f.file) << ", \"line\": " << f.line
	    << ", \"column\": " << f.column << ", \"function\": " << mv_json_string(mv_display_name(name))
	    << ", \"switches\": [";
	for (size_t i = 0; i < f.specialized.size(); i++)
		out << (i ? ", " : "") << mv_json_string(f.specialized[i]);
	out << "], \"domains\": [";
	for (size_t i = 0; i < f.domains.size(); i++)
		out << (i ? ", " : "") << f.domains[i];
	out << "], \"variants_made\": " << f.made << ", \"variants_merged\": "
	    << f.made - f.kept.size() << ", \"bytes_added\": null, \"bytes_exact\": false, "
	    << "\"variants\": [";
	for (size_t i = 0; i < f.kept.size(); i++) {
		out << (i ? ", " : "") << "{\"symbol\": " << mv_json_string(f.kept[i].first)
		    << ", \"bytes\": null, \"inlinable\": "
		    << (inlining(f.kept[i].first) == MV_INLINE_OK ? "true" : "false")
		    << ", \"inline_bytes\": null, \"not_inlinable\": "
		    << (inlining(f.kept[i].first) == MV_INLINE_OK ? std::string("null") :
			mv_json_string(mv_inline_why_text(inlining(f.kept[i].first))))
		    << ", \"guards\": [";
		for (size_t k = 0; k < f.kept[i].second.size(); k++)
			out << (k ? ", " : "") << mv_json_string(f.kept[i].second[k]);
		out << "]}";
	}
	out << "], \"not_specialized\": [";
	for (size_t i = 0; i < f.dynamic.size(); i++)
		out << (i ? ", " : "") << "{\"switch\": " << mv_json_string(f.dynamic[i].first)
		    << ", \"why\": " << mv_json_string(f.dynamic[i].second) << "}";
	bool plain = f.kept.empty() && mv_inline_why.count(name);
	unsigned why = inlining(name);
	out << "], \"plain_inlinable\": " << (!plain ? "null" : why == MV_INLINE_OK ? "true" : "false")
	    << ", \"plain_inline_bytes\": null, \"plain_not_inlinable\": "
	    << (!plain || why == MV_INLINE_OK ? std::string("null") :
		mv_json_string(mv_inline_why_text(why)));
	/* calls are counted by the AsmPrinter: null without it */
	out << ", \"generic_only\": "
	    << (f.generic_only.empty() ? std::string("null") : mv_json_string(f.generic_only))
	    << ", " << calls_json(name) << "}\n";
}

} // namespace

bool mv_write_report(std::string &error)
{
	if (!mv_report_on || mv_report.empty())
		return true;
	std::vector<const std::pair<const std::string, mv_report_fn> *> order;
	for (auto &e : mv_report)
		if (e.second.defined)
			order.push_back(&e);
	std::sort(order.begin(), order.end(), [](auto *a, auto *b) {
		return std::tie(a->second.file, a->second.line, a->second.column, a->first) <
		       std::tie(b->second.file, b->second.line, b->second.column, b->first);
	});
	/* built whole and appended with one write: units compiled in
	 * parallel into one file do not interleave */
	std::string all;
	llvm::raw_string_ostream out(all);
	for (auto *e : order)
		(mv_report_json ? json : text)(out, e->first, e->second);
	out.flush();
	mv_report.clear();
	int fd = mv_report_file.empty() ? 2 :
		 open(mv_report_file.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0666);
	bool ok = fd >= 0 && write(fd, all.data(), all.size()) == (ssize_t)all.size();
	if (!ok)
		error = "cannot write the report to '" +
			(mv_report_file.empty() ? std::string("stderr") : mv_report_file) +
			"': " + strerror(errno);
	if (fd > 2)
		close(fd);
	return ok;
}

/* Each of the AsmPrinter's handlers (sites.cpp, inline.cpp) calls this
 * when the module ends, in whatever order the AsmPrinter calls them: the
 * last writes the report, which then has what both saw. */
void mv_module_emitted(llvm::Module &m)
{
	static unsigned handlers_done;
	if (++handlers_done < 2)
		return;
	handlers_done = 0;
	std::string error;
	if (mv_codegen_follows && !mv_write_report(error))
		m.getContext().emitError("multiverse: " + error);
	mv_inline_why.clear();
	mv_calls.clear();
	mv_site_size.clear();
}
