/* SPDX-License-Identifier: MIT */
/*
 * Inlinable variants, as gcc/inline.cc decides them for GCC: which
 * variants the runtime may copy into a padded call site, and what the
 * descriptor says about their code (common/descriptor.h).
 *
 * A plain function (no variants, MV_FN_PLAIN) is analysed the same way,
 * from after its entry NOP (which sites.cpp emits before the handler
 * here labels anything), for copies through function-pointer switches.
 *
 * Only the final code can tell, so this is a second handler in the
 * AsmPrinter (sites.cpp says how it is hooked in).  For each variant it
 * sees every instruction just before it is emitted and
 *   - labels where a copy would start (after a landing pad) and end
 *     (before the return, which must be the variant's last and only one),
 *     and each PC-relative field in between (clang/arch/ says which forms
 *     the runtime can move);
 *   - notes why the variant cannot be copied: a call, an asm statement
 *     that emits code, the stack pointer or frame register, a return that
 *     is not last, a branch that may leave it, a reference the runtime
 *     cannot relocate.
 * The IR records (descriptors.cpp) cannot name labels inside a function,
 * so their variant tables are taken out of the module when it starts and
 * written here when it ends, with the copy's bounds and relocations as
 * assembler expressions, and body, guards and relocations as distances
 * (common/descriptor.h).  The copy's size is known only to the assembler:
 * over MV_INLINE_MAX bytes, the record says "too large", by expression.
 * The function records, which point to those tables, are written here
 * too: IR cannot name a function by its own symbol where the target
 * prefers a local alias (AArch64, -fno-semantic-interposition).
 */
#include "multiverse.h"
#include "descriptor.h"
#include "arch.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/CodeGen/AsmPrinter.h"
#include "llvm/CodeGen/DebugHandlerBase.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCSectionELF.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <map>
#include <set>
#include <vector>

using namespace llvm;

namespace {

struct Reloc {
	MCSymbol *at;
	int field;
	unsigned kind;
};

/* What one variant's code says about copying it. */
struct Copy {
	MCSymbol *start = nullptr, *end = nullptr;
	std::vector<Reloc> relocs;
	std::set<unsigned> why;
	bool first = true;      /* no instruction seen yet */
	bool done = false;      /* all of its code seen */
};

/* A variant record of the IR, and a table of them taken out of the
 * module: the symbol the function records refer to, and its records. */
struct Record {
	const Constant *body, *guards;
	uint64_t n_guards;
	unsigned flags;                 /* MV_VARIANT_VARS_RELATIVE */
};
struct Table {
	MCSymbol *label;
	std::vector<Record> records;
	const Comdat *group;            /* its function's */
};
/* A function record of the IR (descriptors.cpp), with absolute addresses */
struct FnRecord {
	MCSymbol *label;
	const Function *f;
	const Constant *name, *entry, *table;
	uint64_t n_variants, flags;
};

/* The symbol a record's body names: a variant, or for a plain function
 * the local alias its entry is an offset from (descriptors.cpp). */
const GlobalValue *body_symbol(const Constant *body)
{
	const Value *v = body->stripPointerCasts();
	if (auto *ce = dyn_cast<ConstantExpr>(v))
		if (ce->getOpcode() == Instruction::GetElementPtr)
			v = ce->getOperand(0)->stripPointerCasts();
	return dyn_cast<GlobalValue>(v);
}

/* The function whose code a record's body is. */
const Function *body_function(const Constant *body)
{
	const GlobalValue *v = body_symbol(body);
	if (auto *a = dyn_cast_or_null<GlobalAlias>(v))
		return dyn_cast_or_null<Function>(a->getAliaseeObject());
	return dyn_cast_or_null<Function>(v);
}

class InlineRecorder;
InlineRecorder *current;        /* the module being emitted's (one at a time) */

class InlineRecorder : public DebugHandlerBase {
	AsmPrinter *ap;
	const mv_arch *arch;
	Module *module = nullptr;
	std::vector<Table> tables;
	std::vector<FnRecord> fns;
	std::map<const Function *, Copy> copies;   /* every variant's */
	const MachineFunction *mf = nullptr;
	Copy *cur = nullptr;                       /* mf's, if a variant */
	const std::vector<MCRegister> *stack = nullptr;   /* mf's target's */
	/* by register information: a target has hundreds of registers,
	 * and a unit thousands of variants */
	std::map<const TargetRegisterInfo *, std::vector<MCRegister>> stacks;
	const mv_arch_reloc *pending = nullptr;    /* labelled after mi */
	mv_arch_reloc after;

	MCSymbol *label_here()
	{
		MCSymbol *l = ap->OutContext.createTempSymbol("mvcopy", true);
		ap->OutStreamer->emitLabel(l);
		return l;
	}

	void start_function(const MachineFunction *f)
	{
		mf = f;
		auto c = copies.find(&f->getFunction());
		cur = c == copies.end() ? nullptr : &c->second;
		pending = nullptr;
		if (!cur)
			return;
		stack = &stack_registers(f->getSubtarget().getRegisterInfo());
		/* a part of it in another section (hot/cold splitting) */
		for (const MachineBasicBlock &b : *f)
			if (b.isBeginSection() && &b != &f->front())
				cur->why.insert(MV_INLINE_BRANCHES);
	}

	const std::vector<MCRegister> &stack_registers(const TargetRegisterInfo *tri)
	{
		auto [it, added] = stacks.try_emplace(tri);
		if (added)
			for (unsigned r = 1; r < tri->getNumRegs(); r++)
				for (const char *const *n = arch->stack_registers; *n; n++)
					if (StringRef(tri->getName(r)) == *n)
						it->second.push_back(r);
		return it->second;
	}

	bool uses_stack(const MachineInstr &mi)
	{
		if (mi.getFlag(MachineInstr::FrameSetup) || mi.getFlag(MachineInstr::FrameDestroy))
			return true;
		const TargetRegisterInfo *tri = mf->getSubtarget().getRegisterInfo();
		for (const MachineOperand &op : mi.operands()) {
			if (op.isFI())
				return true;
			if (!op.isReg() || !op.getReg().isPhysical())
				continue;
			for (MCRegister s : *stack)
				if (tri->regsOverlap(op.getReg(), s))
					return true;
		}
		return false;
	}

	/* An asm statement whose text is only blanks (a compiler barrier)
	 * emits nothing. */
	static bool asm_emits_code(const MachineInstr &mi)
	{
		if (mi.getNumOperands() == 0 || !mi.getOperand(0).isSymbol())
			return true;
		return !StringRef(mi.getOperand(0).getSymbolName()).trim().empty();
	}

	void analyse(const MachineInstr &mi)
	{
		if (cur->first) {
			cur->first = false;
			if (arch->is_landing_pad(mi))
				return;
		}
		if (!cur->start)
			cur->start = label_here();
		if (cur->end)           /* anything after the return */
			cur->why.insert(MV_INLINE_RETURNS);
		if (mi.isCall()) {
			cur->why.insert(MV_INLINE_CALLS);
			return;
		}
		if (mi.isInlineAsm()) {
			if (asm_emits_code(mi))
				cur->why.insert(MV_INLINE_ASM);
			return;
		}
		if (mi.isReturn()) {
			if (cur->end || mi.isConditionalBranch() ||
			    mf->getSubtarget().getInstrInfo()->isPredicated(mi))
				cur->why.insert(MV_INLINE_RETURNS);
			else
				cur->end = label_here();
			return;
		}
		if (uses_stack(mi))
			cur->why.insert(MV_INLINE_STACK);
		if (mi.isBranch()) {    /* to a block of its own: moves with it */
			if (mi.isIndirectBranch())
				cur->why.insert(MV_INLINE_BRANCHES);
			for (const MachineOperand &op : mi.operands())
				if (!op.isMBB() && !op.isReg() && !op.isImm() && !op.isRegMask())
					cur->why.insert(MV_INLINE_BRANCHES);
			return;
		}
		mv_arch_reloc r;
		switch (arch->pc_relative(mi, &r)) {
		case -1:
			cur->why.insert(MV_INLINE_REFERENCE);
			break;
		case 1:
			if (r.after) {
				after = r;
				pending = &after;
			} else {
				cur->relocs.push_back({ label_here(), r.field, r.kind });
			}
			break;
		}
	}

	/* Takes the IR's variant tables out of the module (their function
	 * records then refer to a label written in endModule), and notes
	 * the variants to analyse. */
	void take_tables(const std::vector<GlobalVariable *> &records)
	{
		unsigned n = 0;
		for (GlobalVariable *gv : records) {
			auto *array = cast<ConstantArray>(gv->getInitializer());
			Table t;
			t.group = gv->getComdat();
			for (const Use &u : array->operands()) {
				auto *r = cast<ConstantStruct>(u.get());
				t.records.push_back({ r->getOperand(0), r->getOperand(1),
					cast<ConstantInt>(r->getOperand(2))->getZExtValue(),
					(unsigned)cast<ConstantInt>(r->getOperand(8))->getZExtValue() });
				if (const Function *f = body_function(r->getOperand(0)))
					copies[f];
			}
			t.label = take(*gv, "variants", n++);
			tables.push_back(std::move(t));
		}
	}

	/* The same for the function records, whose tables take_tables()
	 * replaced already. */
	void take_functions(const std::vector<GlobalVariable *> &records)
	{
		unsigned n = 0;
		for (GlobalVariable *gv : records) {
			auto *r = cast<ConstantStruct>(gv->getInitializer());
			auto *f = cast<Function>(r->getOperand(0));
			fns.push_back({ nullptr, f, r->getOperand(1), r->getOperand(2), r->getOperand(3),
				cast<ConstantInt>(r->getOperand(4))->getZExtValue(),
				cast<ConstantInt>(r->getOperand(5))->getZExtValue() });
			fns.back().label = take(*gv, "fn", n++);
		}
	}

	/* descriptors.cpp's records in section, by their names' prefix,
	 * those the writer here replaces: tables, and function records
	 * naming their function */
	static std::vector<GlobalVariable *> ir_records(Module &m, StringRef section,
							StringRef prefix)
	{
		std::vector<GlobalVariable *> found;
		for (GlobalVariable &gv : m.globals()) {
			if (!gv.hasInitializer() || gv.getSection() != section ||
			    !gv.getName().starts_with(prefix))
				continue;
			const Constant *init = gv.getInitializer();
			bool ours = section == MV_SECTION_FN
				? isa<ConstantStruct>(init) && isa<Function>(init->getOperand(0))
				: isa<ConstantArray>(init);
			if (ours)
				found.push_back(&gv);
		}
		return found;
	}

	/* Takes gv out of the module; what referred to it (a function
	 * record; beginModule() took it out of the used list) now refers to
	 * the label returned, which the writer emits.  ".L": a label of this object, like the private
	 * global. */
	MCSymbol *take(GlobalVariable &gv, const char *kind, unsigned n)
	{
		auto *decl = new GlobalVariable(*gv.getParent(), gv.getValueType(), false,
			GlobalValue::ExternalLinkage, nullptr, "\1.Lmv." + Twine(kind) + "." + Twine(n));
		gv.replaceAllUsesWith(decl);
		gv.eraseFromParent();
		return ap->getSymbol(decl);
	}

	MCContext &ctx() { return ap->OutContext; }
	const MCExpr *ref(MCSymbol *s) { return MCSymbolRefExpr::create(s, ctx()); }
	const MCExpr *num(int64_t v) { return MCConstantExpr::create(v, ctx()); }

	/* The relocations of an inlinable variant, if any: their label. */
	MCSymbol *write_relocs(const Copy &c, const Comdat *group)
	{
		if (!c.why.empty() || c.relocs.empty())
			return nullptr;
		MCStreamer &out = *ap->OutStreamer;
		MCSymbol *l = ctx().createTempSymbol("mvrelocs", true);
		out.switchSection(mv_descriptor_section(ctx(), MV_SECTION_VARIANTS, group));
		out.emitValueToAlignment(Align(4));
		out.emitLabel(l);
		for (const Reloc &r : c.relocs) {
			out.emitValue(MCBinaryExpr::createAdd(MCBinaryExpr::createSub(ref(r.at),
				ref(c.start), ctx()), num(r.field), ctx()), 4);
			out.emitIntValue(r.kind, 4);
		}
		return l;
	}

	/* Why not, when several reasons hold: the first of these (as GCC's). */
	static unsigned why_not(const Copy &c)
	{
		static const unsigned priority[] = {
			MV_INLINE_CALLS, MV_INLINE_ASM, MV_INLINE_BRANCHES, MV_INLINE_RETURNS,
			MV_INLINE_STACK, MV_INLINE_REFERENCE,
		};
		if (!c.end)
			return MV_INLINE_RETURNS;
		for (unsigned w : priority)
			if (c.why.count(w))
				return w;
		return c.why.empty() ? MV_INLINE_OK : *c.why.begin();
	}

	/* An address field: value (nullptr: a null pointer, 0 either way),
	 * as a distance if relative. */
	void write_address(const MCExpr *value, bool relative)
	{
		MCStreamer &out = *ap->OutStreamer;
		if (!value)
			out.emitIntValue(0, 8);
		else
			out.emitValue(relative ? mv_from_here(out, value) : value, 8);
	}

	/* One variant record (common/descriptor.h, struct mv_desc_variant),
	 * its inlining half from c (nullptr: not analysed). */
	void write_record(const Record &r, const Copy *c, MCSymbol *relocs)
	{
		MCStreamer &out = *ap->OutStreamer;
		/* the body's symbol is local (a variant, a plain function's
		 * alias), the guards and relocations are this unit's labels */
		const GlobalValue *body = body_symbol(r.body);
		bool relative = body && mv_static_link_resolves(*body);
		unsigned flags = r.flags | (relative ? MV_VARIANT_RELATIVE : 0);
		write_address(ap->lowerConstant(r.body), relative);
		write_address(r.guards->isNullValue() ? nullptr : ap->lowerConstant(r.guards),
			      relative);
		out.emitIntValue(r.n_guards, 4);
		unsigned why = c ? why_not(*c) : MV_INLINE_UNKNOWN;
		if (why != MV_INLINE_OK) {
			out.emitIntValue(0, 2);
			out.emitIntValue(0, 2);
			out.emitIntValue(0, 8);
			out.emitIntValue(0, 4);
			out.emitIntValue(why, 2);
			out.emitIntValue(flags, 2);
			return;
		}
		/* fits: (len <= MV_INLINE_MAX) & 1, whatever the assembler's
		 * truth value (GNU as: -1) */
		const MCExpr *len = MCBinaryExpr::createSub(ref(c->end), ref(c->start), ctx());
		const MCExpr *fits = MCBinaryExpr::createAnd(MCBinaryExpr::createLTE(len,
			num(MV_INLINE_MAX), ctx()), num(1), ctx());
		out.emitValue(MCBinaryExpr::createMul(fits, MCBinaryExpr::createSub(ref(c->start),
			ap->lowerConstant(r.body), ctx()), ctx()), 2);
		out.emitValue(MCBinaryExpr::createMul(fits, len, ctx()), 2);
		write_address(relocs ? ref(relocs) : nullptr, relative);
		out.emitIntValue(c->relocs.size(), 4);
		/* MV_INLINE_OK, or MV_INLINE_TOO_LARGE if it does not fit */
		out.emitValue(MCBinaryExpr::createSub(num(MV_INLINE_TOO_LARGE), MCBinaryExpr::createMul(
			fits, num(MV_INLINE_TOO_LARGE - MV_INLINE_OK), ctx()), ctx()), 2);
		out.emitIntValue(flags, 2);
	}

public:
	InlineRecorder(AsmPrinter *a, const mv_arch *ar) : DebugHandlerBase(a), ap(a), arch(ar) {}

	void beginModule(Module *m) override
	{
		Asm = nullptr;  /* none of the base's debug-information work */
		module = m;
		tables.clear();
		fns.clear();
		copies.clear();
		stacks.clear();
		mf = nullptr;
		cur = nullptr;
		current = this;
		std::vector<GlobalVariable *> t = ir_records(*m, MV_SECTION_VARIANTS, ".mv.variants");
		std::vector<GlobalVariable *> f = ir_records(*m, MV_SECTION_FN, ".mv.fn");
		/* Out of the used list first, at once, and the list's old
		 * arrays gone: a replacement in an array of all the module's
		 * records, even a dead one, builds it anew.  For ELF the list
		 * emits nothing, and the writer emits what replaces the
		 * records. */
		std::set<Constant *> taken(t.begin(), t.end());
		taken.insert(f.begin(), f.end());
		removeFromUsedLists(*m, [&](Constant *c) { return taken.count(c) != 0; });
		for (Constant *c : taken)
			c->removeDeadConstantUsers();
		take_tables(t);
		take_functions(f);
	}
	/* A new function starts (its MachineFunction may have the last
	 * one's address): its first instruction sets the state up. */
	void skippedNonDebugFunction() override { next_function(); }
	void beginFunctionImpl(const MachineFunction *) override { next_function(); }

	void next_function()
	{
		if (cur)
			cur->done = true;
		cur = nullptr;
		mf = nullptr;
	}

	/* mv_copy_length() */
	int copy_length(const Function &body, const MCExpr **len)
	{
		auto c = copies.find(&body);
		if (c == copies.end() || !c->second.done)
			return -1;
		if (why_not(c->second) != MV_INLINE_OK)
			return 0;
		*len = MCBinaryExpr::createSub(ref(c->second.end), ref(c->second.start), ctx());
		return 1;
	}
	void endFunctionImpl(const MachineFunction *) override {}

	void beginInstruction(const MachineInstr *mi) override
	{
		if (mi->getMF() != mf)
			start_function(mi->getMF());
		if (!cur || mi->isMetaInstruction() || mi->isPosition() || arch->emits_nothing(*mi))
			return;
		analyse(*mi);
	}

	void endInstruction() override
	{
		if (!pending)
			return;
		cur->relocs.push_back({ label_here(), pending->field, pending->kind });
		pending = nullptr;
	}

	void endModule() override
	{
		next_function();
		current = nullptr;
		write_tables();
		write_functions();
		/* the report, which MultiverseFinish left to now */
		for (auto &[f, c] : copies)
			if (!c.first)
				mv_inline_why[f->getName().str()] = why_not(c);
		mv_module_emitted(*module);
	}

	void write_tables()
	{
		if (tables.empty())
			return;
		MCStreamer &out = *ap->OutStreamer;
		out.pushSection();
		/* in the module's order: the map's, by address, would make the
		 * output differ from one compile to the next */
		std::map<const Function *, MCSymbol *> relocs;
		for (const Function &f : *module)
			if (auto c = copies.find(&f); c != copies.end())
				relocs[&f] = write_relocs(c->second, f.getComdat());
		for (const Table &t : tables) {
			out.switchSection(mv_descriptor_section(ctx(), MV_SECTION_VARIANTS, t.group));
			out.emitValueToAlignment(Align(8));
			out.emitLabel(t.label);
			for (const Record &r : t.records) {
				const Function *f = body_function(r.body);
				auto c = f ? copies.find(f) : copies.end();
				/* a variant the AsmPrinter did not emit is not analysed */
				bool seen = c != copies.end() && !c->second.first;
				write_record(r, seen ? &c->second : nullptr,
					     seen ? relocs[f] : nullptr);
			}
		}
		out.popSection();
	}

	/* The function records (common/descriptor.h, struct mv_desc_fn):
	 * the generic by f's own symbol, a distance where the static link
	 * resolves it; the rest are this unit's, always distances. */
	void write_functions()
	{
		MCStreamer &out = *ap->OutStreamer;
		out.pushSection();
		for (const FnRecord &r : fns) {
			bool relative = mv_static_link_resolves(*r.f);
			out.switchSection(mv_descriptor_section(ctx(), MV_SECTION_FN, r.f->getComdat()));
			out.emitValueToAlignment(Align(8));
			out.emitLabel(r.label);
			write_address(ref(ap->getSymbol(r.f)), relative);
			write_address(ap->lowerConstant(r.name), true);
			write_address(ap->lowerConstant(r.entry), true);
			write_address(ap->lowerConstant(r.table), true);
			out.emitIntValue(r.n_variants, 4);
			out.emitIntValue(r.flags | MV_FN_RELATIVE | (relative ? MV_FN_GENERIC_RELATIVE : 0), 4);
		}
		out.popSection();
	}
};

} // namespace

void mv_add_inline_recorder(AsmPrinter *ap, const mv_arch *arch)
{
	ap->addDebugHandler(std::make_unique<InlineRecorder>(ap, arch));
}

int mv_copy_length(const Function &body, const MCExpr **len)
{
	return current ? current->copy_length(body, len) : -1;
}
