/* SPDX-License-Identifier: MIT */
/*
 * At the start of LLVM's pipeline, before any optimization: one clone of
 * each multiversed function per combination of the values of the
 * switches it reads, with each read replaced by the constant (for a
 * probe, a function-pointer switch compared with NULL, each comparison
 * by its outcome: probes.cpp), so that
 * the optimizer shapes every variant as it would an #ifdef build.  A
 * tracked switch has one more choice, to be read at run time: partially
 * specialized variants, guarded by the other switches only.
 *
 * It also
 *   - protects the generic and the variants: noinline for the generic,
 *     and for both a weak_odr linkage during optimization (merge.cpp
 *     restores theirs), so that no IPO pass (IPSCCP, argument promotion,
 *     dead argument elimination, function attribute inference) lets a
 *     caller rely on anything of their bodies but the ABI;
 *   - emits the switches' descriptors and the module's registration
 *     (descriptors.cpp), and hands the variants and their guards to
 *     merge.cpp through named metadata.
 */
#include "multiverse.h"
#include "arch.h"
#include "json-string.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <vector>

using namespace llvm;

namespace {

/* A switch: a global variable, or a member switch of an object
 * (members.cpp), at offset bytes into gv. */
struct Switch {
	GlobalVariable *gv;
	uint64_t offset;
	unsigned width;               /* bytes */
	unsigned flags;               /* MV_DECL_* */
	std::vector<int64_t> values;  /* explicit ones */
	std::string name;
	Constant *addr;               /* gv, or gv + offset */
};

/* A value, or for a probe (a function-pointer switch) NULL, [0, 0], or
 * not NULL, [1, UINT64_MAX]. */
struct Guard { Switch *sw; int64_t low, high; };

struct Variant {
	Function *body;
	std::vector<Guard> guards;
};

std::map<std::pair<GlobalVariable *, uint64_t>, Switch> switches;
std::vector<Function *> functions;

/* The declarations attribute.cpp and members.cpp recorded, as this
 * module has them. */
void read_declared(Module &m)
{
	switches.clear();
	functions.clear();
	const DataLayout &dl = m.getDataLayout();
	for (auto &[name, d] : mv_declared) {
		GlobalValue *gv = m.getNamedValue(name);
		if (!gv)
			continue;
		/* C++'s complete object constructor as an alias of the base
		 * object's: its calls here are the function's call sites */
		if (auto *a = dyn_cast<GlobalAlias>(gv); a && d.function)
			if (auto *f = dyn_cast<Function>(a->getAliasee()->stripPointerCasts()))
				a->replaceUsesWithIf(f, [](Use &u) {
					auto *call = dyn_cast<CallBase>(u.getUser());
					return call && call->isCallee(&u); });
		if (auto *f = dyn_cast<Function>(gv)) {
			if (d.function)
				functions.push_back(f);
		} else if (auto *v = dyn_cast<GlobalVariable>(gv); v && !d.function) {
			switches[{ v, 0 }] = Switch{ v, 0,
				(unsigned)dl.getTypeAllocSize(v->getValueType()), d.flags,
				d.values, mv_display_name(v->getName()), v };
			mv_switch_names[v] = mv_display_name(v->getName());
		}
	}
	Type *i8 = Type::getInt8Ty(m.getContext()), *i64 = Type::getInt64Ty(m.getContext());
	for (auto &[name, members] : mv_objects) {
		GlobalVariable *v = m.getNamedGlobal(name);
		if (!v)
			continue;
		for (const mv_member &mm : members) {
			Constant *addr = mm.offset ? ConstantExpr::getGetElementPtr(i8, v,
				ConstantInt::get(i64, mm.offset)) : (Constant *)v;
			switches[{ v, mm.offset }] = Switch{ v, mm.offset, mm.width,
				mm.decl.flags, mm.decl.values, mm.name, addr };
			mv_switch_names[addr] = mm.name;
		}
	}
}

/* The integer switch a load reads whole, if any. */
Switch *switch_read(LoadInst *load)
{
	uint64_t off;
	GlobalVariable *gv = mv_object_of(load->getPointerOperand(),
				       load->getModule()->getDataLayout(), &off);
	if (!gv)
		return nullptr;
	auto it = switches.find({ gv, off });
	if (it == switches.end() || (it->second.flags & MV_DECL_FNPTR) ||
	    !load->getType()->isIntegerTy() ||
	    load->getModule()->getDataLayout().getTypeStoreSize(load->getType()) !=
		    it->second.width)
		return nullptr;
	return &it->second;
}

/* A function-pointer switch that load reads whole: a probe if the
 * function only compares it with NULL and calls it (probes.cpp). */
Switch *probe_read(LoadInst *load)
{
	uint64_t off;
	GlobalVariable *gv = mv_object_of(load->getPointerOperand(),
				       load->getModule()->getDataLayout(), &off);
	auto it = gv ? switches.find({ gv, off }) : switches.end();
	if (it == switches.end() || !(it->second.flags & MV_DECL_FNPTR) ||
	    !load->isSimple() || !load->getType()->isPointerTy())
		return nullptr;
	return &it->second;
}

std::vector<LoadInst *> probe_loads(Function &f, const Switch *s)
{
	std::vector<LoadInst *> out;
	for (Instruction &i : instructions(f))
		if (auto *load = dyn_cast<LoadInst>(&i))
			if (probe_read(load) == s)
				out.push_back(load);
	return out;
}

/* Whether f reads a byte of switch s by another load than probe_read()'s:
 * an atomic one, or of another type. */
bool read_otherwise(Function &f, const Switch *s)
{
	const DataLayout &dl = f.getParent()->getDataLayout();
	for (Instruction &i : instructions(f)) {
		auto *load = dyn_cast<LoadInst>(&i);
		uint64_t off;
		if (!load || probe_read(load) == s ||
		    mv_object_of(load->getPointerOperand(), dl, &off) != s->gv)
			continue;
		uint64_t size = dl.getTypeStoreSize(load->getType());
		if (off < s->offset + s->width && off + size > s->offset)
			return true;
	}
	return false;
}

/* A value as the descriptors carry it: sign- or zero-extended from the
 * switch's width. */
int64_t normalize(const Switch &s, int64_t v)
{
	unsigned bits = s.width * 8;
	if (bits >= 64)
		return v;
	uint64_t mask = (1ull << bits) - 1, u = (uint64_t)v & mask;
	if ((s.flags & MV_DECL_SIGNED) && (u >> (bits - 1)))
		return (int64_t)(u | ~mask);
	return (int64_t)u;
}

/* The values to compile f for: the explicit ones, or those f tests the
 * switch against (domain.cpp). */
std::vector<int64_t> domain(Switch &s, Function &f)
{
	if (s.flags & MV_DECL_FNPTR)
		return { 0, 1 };        /* a probe: NULL, not NULL */
	if (s.flags & MV_DECL_VALUES) {
		std::set<int64_t> d;
		for (int64_t v : s.values)
			d.insert(normalize(s, v));
		return { d.begin(), d.end() };
	}
	std::vector<Value *> reads;
	for (Instruction &i : instructions(f))
		if (auto *load = dyn_cast<LoadInst>(&i))
			if (switch_read(load) == &s)
				reads.push_back(load);
	return mv_domain(reads, s.width, s.flags & MV_DECL_SIGNED);
}

/* The users of each constant that f's instructions use, directly or
 * through constant expressions and aggregates (never a global's
 * initializer), each as often as it uses it.  A switch's global has a
 * user in every function that reads it: asking all of them which are
 * f's would make the pass quadratic in the functions. */
class UsersIn {
	std::map<const Constant *, std::vector<User *>> users;

	void add(Constant *c, User *u)
	{
		std::vector<User *> &v = users[c];
		bool first = v.empty();
		v.push_back(u);
		if (first && !isa<GlobalValue>(c))
			for (Use &op : c->operands())
				if (auto *oc = dyn_cast<Constant>(op.get()))
					add(oc, c);
	}

public:
	explicit UsersIn(Function &f)
	{
		for (Instruction &i : instructions(f))
			for (Use &op : i.operands())
				if (auto *c = dyn_cast<Constant>(op.get()))
					add(c, &i);
	}

	/* p's users in f: all of an instruction's or argument's are */
	std::vector<User *> of(Value *p) const
	{
		auto *c = dyn_cast<Constant>(p);
		if (!c)
			return { p->user_begin(), p->user_end() };
		auto it = users.find(c);
		return it == users.end() ? std::vector<User *>() : it->second;
	}
};

/* A call of UBSan's run-time report, which takes the address as a
 * number to print it. */
bool ubsan_report(User *u)
{
	auto *call = dyn_cast<CallBase>(u);
	Function *f = call ? call->getCalledFunction() : nullptr;
	return f && f->getName().starts_with("__ubsan_handle_");
}

/* Whether the address, as a number (v), is only computed with, compared
 * and passed to a report: what -fsanitize=alignment (its low bits) and
 * =pointer-overflow (the sum of the base and the offset) do with it. */
bool number_only_checked(Value *v, unsigned depth)
{
	if (depth > 8)
		return false;
	for (User *u : v->users()) {
		if (isa<ICmpInst>(u) || ubsan_report(u))
			continue;
		bool arith = isa<BinaryOperator>(u) ||
			(isa<ConstantExpr>(u) && Instruction::isBinaryOp(cast<ConstantExpr>(u)->getOpcode()));
		if (!arith || !number_only_checked(u, depth + 1))
			return false;
	}
	return true;
}

/* -fsanitize=object-size asks the size of the object behind the
 * address (llvm.objectsize); =alignment and =pointer-overflow check it
 * as a number (number_only_checked).  None of that lets the address go
 * anywhere. */
bool sanitizer_check(User *u)
{
	if (auto *ii = dyn_cast<IntrinsicInst>(u))
		return ii->getIntrinsicID() == Intrinsic::objectsize;
	return isa<PtrToIntOperator>(u) && number_only_checked(u, 0);
}

/* Whether f only reads switch s: no store that may reach it, no volatile
 * access of it (an atomic load is a read: a variant reads the switch
 * once, as a constant, whatever the order), and no address of its
 * object that goes anywhere but into loads, stores and comparisons.  p is a pointer into
 * s's object at offset (unknown: -1). */
bool only_reads(Function &f, const UsersIn &in, const Switch &s, Value *p, int64_t offset)
{
	const DataLayout &dl = f.getParent()->getDataLayout();
	auto overlaps = [&](Type *t) {
		int64_t size = dl.getTypeStoreSize(t);
		return offset < 0 || (offset < (int64_t)(s.offset + s.width) &&
				      offset + size > (int64_t)s.offset);
	};
	for (User *u : in.of(p)) {
		if (auto *load = dyn_cast<LoadInst>(u)) {
			if (load->isVolatile() && overlaps(load->getType()))
				return false;
		} else if (auto *store = dyn_cast<StoreInst>(u)) {
			if (store->getValueOperand() == p || overlaps(store->getValueOperand()->getType()))
				return false;
		} else if (auto *gep = dyn_cast<GEPOperator>(u)) {
			APInt off(dl.getIndexTypeSizeInBits(gep->getType()), 0);
			int64_t next = offset >= 0 && gep->accumulateConstantOffset(dl, off)
				? offset + off.getSExtValue() : -1;
			if (!only_reads(f, in, s, gep, next))
				return false;
		} else if (isa<BitCastOperator>(u) || isa<AddrSpaceCastOperator>(u)) {
			if (!only_reads(f, in, s, u, offset))
				return false;
		} else if (isa<ICmpInst>(u)) {
			continue;        /* compared (is p the static object?) */
		} else if (sanitizer_check(u)) {
			continue;
		} else {
			return false;    /* the address goes elsewhere */
		}
	}
	return true;
}

std::vector<Switch *> switches_read(Function &f)
{
	std::vector<Switch *> out, seen;
	UsersIn in(f);
	for (Instruction &i : instructions(f)) {
		auto *load = dyn_cast<LoadInst>(&i);
		Switch *s = load ? switch_read(load) : nullptr;
		if (s && std::find(out.begin(), out.end(), s) == out.end() &&
		    only_reads(f, in, *s, s->gv, 0))
			out.push_back(s);
		Switch *p = load ? probe_read(load) : nullptr;
		if (!p || std::find(seen.begin(), seen.end(), p) != seen.end())
			continue;
		seen.push_back(p);
		enum mv_probe_use use = mv_probe_use(probe_loads(f, p), read_otherwise(f, p));
		if (use == MV_PROBE_NONE || !only_reads(f, in, *p, p->gv, 0))
			continue;       /* written, or its address taken: uses.cpp warned */
		if (use == MV_PROBE_TESTED)
			out.push_back(p);
		else
			mv_report[f.getName().str()].dynamic.push_back({ p->name,
				MV_PROBE_UNTRACED_WHY });
	}
	return out;
}

/* Whether v is used by f's instructions only, directly or through
 * constant expressions. */
bool used_only_in(Function &f, Value *v)
{
	for (User *u : v->users()) {
		if (auto *i = dyn_cast<Instruction>(u)) {
			if (i->getFunction() != &f)
				return false;
		} else if (!isa<Constant>(u) || isa<GlobalValue>(u) || !used_only_in(f, u)) {
			return false;
		}
	}
	return true;
}

/* Finds the globals holding addresses of f's labels (computed-goto
 * tables).  A clone maps the label addresses in its own instructions
 * (CloneFunction does), but one in a global would still lead into the
 * generic: each clone gets its own copy of such a table, which is sound
 * only for a constant, local table that f alone uses.  False if a label
 * address is anywhere else. */
bool label_tables(Function &f, std::vector<GlobalVariable *> &tables)
{
	std::vector<Value *> work;
	for (BasicBlock &b : f)
		if (b.hasAddressTaken())
			if (BlockAddress *ba = BlockAddress::lookup(&b))
				work.push_back(ba);
	while (!work.empty()) {
		Value *v = work.back();
		work.pop_back();
		for (User *u : v->users()) {
			if (auto *i = dyn_cast<Instruction>(u)) {
				if (i->getFunction() != &f)
					return false;
			} else if (auto *gv = dyn_cast<GlobalVariable>(u)) {
				if (!gv->isConstant() || !gv->hasLocalLinkage() || !used_only_in(f, gv))
					return false;
				if (std::find(tables.begin(), tables.end(), gv) == tables.end())
					tables.push_back(gv);
			} else if (isa<Constant>(u) && !isa<GlobalValue>(u)) {
				work.push_back(u);
			} else {
				return false;
			}
		}
	}
	return true;
}

/* Gives clone c its own copies of f's label tables, with c's labels. */
void own_tables(Function &c, const std::vector<GlobalVariable *> &tables,
		ValueToValueMapTy &map)
{
	for (GlobalVariable *t : tables) {
		convertUsersOfConstantsToInstructions({ t }, &c);
		auto *copy = new GlobalVariable(*c.getParent(), t->getValueType(), true,
			GlobalValue::PrivateLinkage, MapValue(t->getInitializer(), map),
			t->getName() + "." + c.getName());
		copy->copyAttributesFrom(t);
		std::vector<Use *> uses;
		for (Use &u : t->uses())
			if (auto *i = dyn_cast<Instruction>(u.getUser()); i && i->getFunction() == &c)
				uses.push_back(&u);
		for (Use *u : uses)
			u->set(copy);
	}
}

std::vector<Variant> specialize(Function &f, unsigned cap)
{
	std::vector<Switch *> vars = switches_read(f);
	std::vector<std::vector<int64_t>> doms;
	std::vector<size_t> widths;   /* a tracked switch's last choice: read it */
	size_t total = 1;
	for (Switch *v : vars) {
		doms.push_back(domain(*v, f));
		widths.push_back(doms.back().size() +
				 (v->flags & MV_DECL_TRACKED ? 1 : 0));
		total *= widths.back();
		if (total > cap)
			break;
	}
	std::vector<Variant> out;
	if (vars.empty())
		return out;
	mv_report_fn &report = mv_report[f.getName().str()];
	for (size_t k = 0; k < vars.size(); k++) {
		report.specialized.push_back(vars[k]->name);
		report.domains.push_back(vars[k]->flags & MV_DECL_FNPTR ? MV_PROBE_DOMAIN_JSON :
			mv_json_values(k < doms.size() ? doms[k] : domain(*vars[k], f),
				       !(vars[k]->flags & MV_DECL_SIGNED)));
	}
	std::vector<GlobalVariable *> tables;
	if (!label_tables(f, tables)) {
		f.getContext().diagnose(DiagnosticInfoOptimizationFailure(f,
			DiagnosticLocation(f.getSubprogram()), "multiverse: '" + mv_display_name(f.getName()) +
			"' cannot be specialized: the address of one of its labels is "
			"stored where a copy of the function cannot follow it (a table "
			"that is not constant, or that another function uses); only the "
			"generic is used"));
		report.generic_only = "the address of one of its labels is stored where "
			"a copy cannot follow it";
		return out;
	}
	if (total > cap) {
		unsigned long long all = 1;   /* saturates */
		for (size_t k = 0; k < vars.size(); k++) {
			size_t w = domain(*vars[k], f).size() +
				   (vars[k]->flags & MV_DECL_TRACKED ? 1 : 0);
			all = all > ULLONG_MAX / w ? ULLONG_MAX : all * w;
		}
		f.getContext().diagnose(DiagnosticInfoOptimizationFailure(f,
			DiagnosticLocation(f.getSubprogram()), "multiverse: '" + mv_display_name(f.getName()) +
			"' would need " + (all == ULLONG_MAX ? Twine("too many") : Twine(all)) +
			" variants, more than the limit of " + Twine(cap) + " (plugin argument "
			"'max-variants'); only the generic is used"));
		report.generic_only = "it would need " + (all == ULLONG_MAX ? std::string("too many") :
			std::to_string(all)) + " variants, more than max-variants (" +
			std::to_string(cap) + ")";
		return out;
	}
	for (size_t n = 0; n < total; n++) {
		std::vector<size_t> choice;
		size_t rest = n, dynamic = 0;
		for (size_t k = 0; k < vars.size(); k++) {
			choice.push_back(rest % widths[k]);
			rest /= widths[k];
			dynamic += choice[k] == doms[k].size();
		}
		if (dynamic == vars.size())     /* reads every switch: the generic */
			continue;
		Variant v;
		ValueToValueMapTy map;
		Function *c = CloneFunction(&f, map);
		c->setName(f.getName() + ".multiverse." + std::to_string(n));
		c->setLinkage(GlobalValue::InternalLinkage);
		c->setVisibility(GlobalValue::DefaultVisibility);
		c->setComdat(f.getComdat());    /* dropped with the generic */
		for (size_t k = 0; k < vars.size(); k++) {
			if (choice[k] == doms[k].size())
				continue;
			int64_t value = doms[k][choice[k]];
			if (vars[k]->flags & MV_DECL_FNPTR) {
				v.guards.push_back({ vars[k], value, value ? -1 : 0 });
				mv_probe_switches.insert(vars[k]->addr);
				mv_probe_fold(probe_loads(*c, vars[k]), value);
				/* its calls through the probe stay in it, where
				 * sites.cpp flags them: not outlined (-Oz) */
				if (value) {
					c->addFnAttr(MV_PROBE_SET_ATTR, c->getFnAttribute(
						MV_PROBE_SET_ATTR).getValueAsString().str() +
						mv_probe_key(vars[k]->gv->getName().str(), vars[k]->offset));
					c->addFnAttr("nooutline");
				}
				continue;
			}
			v.guards.push_back({ vars[k], value, value });
			std::vector<LoadInst *> loads;
			for (Instruction &i : instructions(*c))
				if (auto *load = dyn_cast<LoadInst>(&i))
					if (switch_read(load) == vars[k])
						loads.push_back(load);
			for (LoadInst *load : loads) {
				auto *t = cast<IntegerType>(load->getType());
				load->replaceAllUsesWith(ConstantInt::get(t, (uint64_t)value, true));
				load->eraseFromParent();
			}
		}
		own_tables(*c, tables, map);
		v.body = c;
		out.push_back(v);
	}
	report.made = out.size();
	return out;
}

/* Calls of f stay calls, also where the caller asked to inline them
 * (flatten marks its calls always_inline): commit redirects them. */
void keep_calls(Function &f)
{
	f.addFnAttr(Attribute::NoInline);
	for (User *u : f.users())
		if (auto *call = dyn_cast<CallBase>(u); call && call->getCalledOperand() == &f) {
			call->removeFnAttr(Attribute::AlwaysInline);
			call->addFnAttr(Attribute::NoInline);
		}
}

/* weak_odr until merge.cpp restores the linkage: no IPO pass lets callers
 * rely on a definition that the linker might replace. */
void protect(Function &f)
{
	f.addFnAttr(MV_LINKAGE_ATTR, std::to_string(f.getLinkage()));
	f.setLinkage(GlobalValue::WeakODRLinkage);
}

Metadata *md(Module &m, int64_t v)
{
	return ConstantAsMetadata::get(ConstantInt::get(Type::getInt64Ty(m.getContext()), v));
}

} // namespace

std::set<Constant *> mv_probe_switches;

GlobalVariable *mv_object_of(Value *p, const DataLayout &dl, uint64_t *offset)
{
	APInt off(dl.getIndexTypeSizeInBits(p->getType()), 0);
	auto *gv = dyn_cast<GlobalVariable>(p->stripAndAccumulateConstantOffsets(dl, off, true));
	if (!gv || off.isNegative())
		return nullptr;
	*offset = off.getZExtValue();
	return gv;
}

PreservedAnalyses MultiverseSpecialize::run(Module &m, ModuleAnalysisManager &)
{
	mv_claim_unnamed(m);
	/* A function the unit defines but does not emit (an inline one it
	 * never calls) is not compiled: the report says nothing of it, as
	 * GCC's does not. */
	for (auto &[name, r] : mv_report) {
		GlobalValue *gv = m.getNamedValue(name);
		if (r.defined && (!gv || (isa<Function>(gv) && gv->isDeclaration())))
			r.defined = false;
	}
	read_declared(m);
	if (switches.empty() && functions.empty())
		return PreservedAnalyses::all();
	const mv_arch *arch = mv_arch_of(Triple(m.getTargetTriple()));
	/* x32 and ILP32 are the same architectures with 32-bit pointers,
	 * which neither the descriptors nor the runtime have. */
	if (!arch || m.getDataLayout().getPointerSizeInBits() != 64) {
		m.getContext().emitError("multiverse: target '" + m.getTargetTriple() + "' is "
					 "not supported; the Clang plugin supports x86-64 and AArch64 "
					 "with 64-bit pointers (LP64)");
		return PreservedAnalyses::all();
	}
	/* Records for the switches defined here and those the guards name
	 * (which also keeps a declared one from being dropped). */
	std::set<Constant *> referenced;
	NamedMDNode *list = m.getOrInsertNamedMetadata(MV_VARIANTS_MD);
	for (Function *f : functions) {
		if (!f->isDeclaration() && f->hasFnAttribute(Attribute::AlwaysInline)) {
			/* from an earlier declaration, which Sema had not merged
			 * yet when it saw the attribute */
			m.getContext().diagnose(DiagnosticInfoUnsupported(*f, "multiverse: '" +
				mv_display_name(f->getName()) + "' is 'always_inline'; a multiversed function is "
				"never inlined, so that commit can redirect every call to it",
				DiagnosticLocation(f->getSubprogram()), DS_Error));
			f->removeFnAttr(Attribute::AlwaysInline);
		}
		/* C99 inline without extern: the body here only offers
		 * inlining, and the generic is another unit's */
		if (f->hasAvailableExternallyLinkage())
			f->deleteBody();
		/* -fno-plt would call through a register: calls stay direct
		 * (through a PLT entry if need be), so that they are sites */
		f->removeFnAttr(Attribute::NonLazyBind);
		if (unsigned size = mv_inline_size(f->getName().str()))
			f->addFnAttr(MV_INLINE_SIZE_ATTR, std::to_string(size));
		if (f->isDeclaration()) {
			/* defined elsewhere: its calls here are sites all the same */
			f->addFnAttr(MV_GENERIC_ATTR, "0");
			continue;
		}
		std::vector<Variant> vs = specialize(*f, max_variants);
		unsigned pad = arch->pad_length(m, *f);
		keep_calls(*f);
		f->addFnAttr(MV_GENERIC_ATTR, std::to_string(pad));
		if (!f->hasSection())
			f->setSection((".text.multiverse." + f->getName()).str());
		protect(*f);
		std::vector<Metadata *> entry = { ValueAsMetadata::get(f) };
		for (Variant &v : vs) {
			protect(*v.body);
			std::vector<Metadata *> r = { ValueAsMetadata::get(v.body) };
			for (Guard &g : v.guards) {
				r.push_back(ValueAsMetadata::get(g.sw->addr));
				r.push_back(md(m, normalize(*g.sw, g.low)));
				r.push_back(md(m, normalize(*g.sw, g.high)));
				r.push_back(md(m, !(g.sw->flags & MV_DECL_SIGNED)));
				referenced.insert(g.sw->addr);
			}
			entry.push_back(MDTuple::get(m.getContext(), r));
		}
		list->addOperand(MDTuple::get(m.getContext(), entry));
	}
	mv_fnptr_switches fnptrs;
	for (auto &[key, s] : switches)
		if (s.flags & MV_DECL_FNPTR)
			fnptrs[key] = { s.addr, s.name };
	for (Constant *addr : mv_redirect_switch_calls(m, fnptrs))
		referenced.insert(addr);
	/* The records in the order of the module's globals, then offsets:
	 * the map's, by address, would differ from one compile to the next. */
	std::map<const GlobalVariable *, size_t> position;
	for (const GlobalVariable &g : m.globals())
		position.emplace(&g, position.size());
	std::vector<std::pair<size_t, const Switch *>> order;
	for (auto &[key, s] : switches) {
		auto p = position.find(key.first);
		order.push_back({ p == position.end() ? SIZE_MAX : p->second, &s });
	}
	std::sort(order.begin(), order.end(), [](auto &a, auto &b) {
		return std::tie(a.first, a.second->offset, a.second->name) <
		       std::tie(b.first, b.second->offset, b.second->name); });
	std::vector<GlobalValue *> used;
	for (auto &[pos, s] : order)
		if (!s->gv->isDeclaration() || referenced.count(s->addr))
			mv_emit_var(m, s->addr, s->name, s->width, s->flags, used);
	if (!used.empty())
		appendToUsed(m, used);
	mv_emit_registration(m, optional_runtime);
	return PreservedAnalyses::none();
}
