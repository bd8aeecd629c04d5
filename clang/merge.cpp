/* SPDX-License-Identifier: MIT */
/*
 * At the end of LLVM's pipeline: variants whose optimized bodies are the
 * same (FunctionComparator) become one, and its guards the union of
 * theirs.  Guards are coalesced into ranges only where the values are
 * adjacent, because a range must never claim a value no variant was
 * compiled for (as in gcc/merge.cc).  Then the linkages specialize.cpp
 * replaced come back, and the functions' descriptors are emitted.
 */
#include "multiverse.h"
#include "json-string.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/FunctionComparator.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <set>

using namespace llvm;

namespace {

int64_t value(const Metadata *m)
{
	return mdconst::extract<ConstantInt>(m)->getSExtValue();
}

/* Two records that differ in one switch only, where one's range ends
 * right before the other's starts, become one. */
bool coalesce(mv_record &a, const mv_record &b, const std::set<Constant *> &is_unsigned)
{
	size_t diff = a.guards.size();
	if (b.guards.size() != diff)     /* partial variants of tracked switches */
		return false;
	for (size_t i = 0; i < a.guards.size(); i++) {
		const mv_range &x = a.guards[i], &y = b.guards[i];
		if (x.sw != y.sw)
			return false;
		if (x.low == y.low && x.high == y.high)
			continue;
		if (diff != a.guards.size())
			return false;
		diff = i;
	}
	if (diff == a.guards.size())
		return true;                     /* the same guard twice */
	mv_range &x = a.guards[diff];
	const mv_range &y = b.guards[diff];
	bool u = is_unsigned.count(x.sw);
	auto next = [u](int64_t v, int64_t w) {
		return u ? (uint64_t)v != UINT64_MAX && (uint64_t)v + 1 == (uint64_t)w
			 : v != INT64_MAX && v + 1 == w;
	};
	if (next(x.high, y.low)) {
		x.high = y.high;
		return true;
	}
	if (next(y.high, x.low)) {
		x.low = y.low;
		return true;
	}
	return false;
}

std::vector<mv_record> coalesced(std::vector<mv_record> rs,
				 const std::set<Constant *> &is_unsigned)
{
	for (bool changed = true; changed; ) {
		changed = false;
		for (size_t i = 0; i < rs.size() && !changed; i++)
			for (size_t j = i + 1; j < rs.size() && !changed; j++)
				if (rs[i].body == rs[j].body && coalesce(rs[i], rs[j], is_unsigned)) {
					rs.erase(rs.begin() + j);
					changed = true;
				}
	}
	return rs;
}

/* An instruction at the top of the generic's entry block, so that the
 * entry NOP (sites.cpp) never lands after a label that a branch inside
 * the function could reach. */
void anchor_entry(Function &f)
{
	LLVMContext &c = f.getContext();
	auto *asm_ = InlineAsm::get(FunctionType::get(Type::getVoidTy(c), false), "", "", true);
	CallInst::Create(asm_, "", f.getEntryBlock().getFirstInsertionPt());
}

/* Unless its declaration says ("inline", N), the calls of generic in
 * this unit are sized by its variants (sites.cpp), which must be emitted
 * first: the AsmPrinter emits functions in the module's order, and the
 * padding refers only to code before it. */
void size_by_variants(Module &m, Function &generic, const std::vector<Function *> &bodies)
{
	auto d = mv_declared.find(generic.getName().str());
	if (bodies.empty() || (d != mv_declared.end() && (d->second.flags & MV_DECL_INLINE)))
		return;
	std::string names;
	for (Function *b : bodies) {
		names += (names.empty() ? "" : ",") + b->getName().str();
		m.getFunctionList().splice(m.begin(), m.getFunctionList(), b->getIterator());
	}
	generic.addFnAttr(MV_SIZED_BY_ATTR, names);
}

} // namespace

/* The bodies kept, each with its guards as text, for the report. */
void report_kept(mv_report_fn &r, const std::vector<mv_record> &records)
{
	for (const mv_record &rec : records) {
		std::string g;
		for (const mv_range &x : rec.guards) {
			auto name = mv_switch_names.find(x.sw);
			g += (g.empty() ? "" : " and ") +
			     mv_guard_text(name == mv_switch_names.end() ? "?" : name->second,
					   x.low, x.high, mv_probe_switches.count(x.sw));
		}
		auto same = std::find_if(r.kept.begin(), r.kept.end(), [&](auto &k) {
			return k.first == rec.body->getName(); });
		if (same == r.kept.end())
			r.kept.push_back({ rec.body->getName().str(), { g } });
		else
			same->second.push_back(g);
	}
}

PreservedAnalyses MultiverseFinish::run(Module &m, ModuleAnalysisManager &)
{
	for (Function &f : m) {
		Attribute a = f.getFnAttribute(MV_LINKAGE_ATTR);
		if (!a.isValid())
			continue;
		unsigned l;
		if (!a.getValueAsString().getAsInteger(10, l))
			f.setLinkage((GlobalValue::LinkageTypes)l);
		f.removeFnAttr(MV_LINKAGE_ATTR);
	}
	NamedMDNode *list = m.getNamedMetadata(MV_VARIANTS_MD);
	if (!list)
		return PreservedAnalyses::all();
	GlobalNumberState numbers;
	std::vector<GlobalValue *> used;
	for (MDNode *entry : list->operands()) {
		auto *generic = mdconst::dyn_extract_or_null<Function>(entry->getOperand(0));
		if (!generic)
			continue;
		std::vector<mv_record> records;
		std::vector<Function *> bodies;
		std::set<Constant *> is_unsigned;
		for (unsigned i = 1; i < entry->getNumOperands(); i++) {
			auto *v = cast<MDNode>(entry->getOperand(i));
			auto *body = mdconst::dyn_extract_or_null<Function>(v->getOperand(0));
			if (!body)
				continue;
			/* the first body that compares equal stands for this one */
			for (Function *other : bodies)
				if (FunctionComparator(other, body, &numbers).compare() == 0) {
					body->replaceAllUsesWith(other);
					body->eraseFromParent();
					body = other;
					break;
				}
			if (std::find(bodies.begin(), bodies.end(), body) == bodies.end())
				bodies.push_back(body);
			mv_record r{ body, {} };
			bool complete = true;
			for (unsigned k = 1; k + 3 < v->getNumOperands(); k += 4) {
				auto *sw = mdconst::dyn_extract_or_null<Constant>(v->getOperand(k));
				if (!sw) {
					complete = false;   /* cannot be: its record keeps it */
					break;
				}
				if (value(v->getOperand(k + 3)))
					is_unsigned.insert(sw);
				r.guards.push_back({ sw, value(v->getOperand(k + 1)),
						     value(v->getOperand(k + 2)) });
			}
			if (complete && !r.guards.empty())
				records.push_back(r);
		}
		anchor_entry(*generic);
		size_by_variants(m, *generic, bodies);
		std::vector<mv_record> merged = coalesced(records, is_unsigned);
		if (mv_report_on)
			report_kept(mv_report[generic->getName().str()], merged);
		mv_emit_function(m, *generic, merged, used);
	}
	if (!used.empty())
		appendToUsed(m, used);
	list->eraseFromParent();
	std::string error;
	if (!mv_codegen_follows && !mv_write_report(error))
		m.getContext().emitError("multiverse: " + error);
	return PreservedAnalyses::none();
}
