/* SPDX-License-Identifier: MIT */
/*
 * Machine level, where a pass plugin has no hook of its own: the
 * AsmPrinter of each supported target (clang/arch/) is wrapped
 * (TargetRegistry::RegisterAsmPrinter) so that it carries one more
 * handler, which sees each instruction just before it is emitted.
 * That is the final code: after branch folding, tail duplication and
 * every other pass that can move, copy or drop a call.  The handler
 *   - plants the entry NOP of each generic: its second instruction,
 *     after the landing pad (endbr64, bti c) if it has one, checking
 *     that the pad is the one specialize.cpp predicted, else after a
 *     NOP that a debugger's breakpoint on the function may cover;
 *   - labels every call and tail call to a multiversed function or to
 *     a switch's stub (fnptr.cpp) just before its first byte, and at the
 *     end of the module writes the labels and callees (the function, or
 *     the switch) into __multiverse_site (common/descriptor.h);
 *   - pads each such call before it (NOPs, the first a jump over the
 *     others where there is more than one: clang/arch/): as many bytes
 *     as the callee's ("inline", N) says, else, where this unit emitted
 *     the callee's variants already (merge.cpp moves them first), as
 *     its largest copyable variant's length, an expression the
 *     assembler computes (inline.cpp labels the copies), else
 *     inline-size=N;
 *   - declares that each generic clobbers every register the ABI lets
 *     it, for interprocedural register allocation.
 * It works the same with the integrated assembler and with -S.
 * A second handler (inline.cpp) describes the variants that may be
 * copied into call sites.
 */
#include "multiverse.h"
#include "descriptor.h"
#include "arch.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/CodeGen/AsmPrinter.h"
#include "llvm/CodeGen/DebugHandlerBase.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/MachineOperand.h"
#include "llvm/CodeGen/RegisterUsageInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCSectionELF.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"

#include <map>
#include <vector>

using namespace llvm;

namespace {

/* The NOPs before a call: a number of bytes, or an assembler expression
 * (sized by the callee's variants). */
struct Pad {
	unsigned bytes = 0;
	const MCExpr *expr = nullptr;
	bool padded() const { return bytes || expr; }
};

struct Site {
	MCSymbol *label;
	const GlobalValue *callee;      /* a generic, or a switch's object */
	uint64_t offset;                /* of the switch in its object */
	Pad pad;
	const Comdat *group;            /* the caller's */
	bool in_probe_variant;          /* MV_SITE_IN_PROBE_VARIANT */
};

class SiteRecorder : public DebugHandlerBase {
	AsmPrinter *ap;       /* DebugHandlerBase's Asm stays unset (beginModule) */
	Module *module = nullptr;
	const mv_arch *arch;
	std::vector<Site> sites;
	std::map<const Function *, const MCExpr *> sizes;   /* variants_size() */
	const MachineFunction *mf = nullptr;
	bool want_entry = false;
	bool unpadded = false;    /* padding mf's calls could break its branches */
	bool registers = false;   /* the unit registers its module */
	unsigned pad = 0, seen_pad = 0;

	/* Interprocedural register allocation (-mllvm -enable-ipra) lets
	 * callers compiled after a function keep values in the registers it
	 * leaves alone.  A variant may clobber others, so the generic's
	 * record says it clobbers all that the ABI allows. */
	void declare_abi_clobbers()
	{
		auto *usage = ap->getAnalysisIfAvailable<PhysicalRegisterUsageInfo>();
		if (!usage)
			return;
		const TargetRegisterInfo *tri = mf->getSubtarget().getRegisterInfo();
		const uint32_t *mask = tri->getCallPreservedMask(*mf,
			mf->getFunction().getCallingConv());
		if (mask)
			usage->storeUpdateRegUsageInfo(mf->getFunction(), ArrayRef<uint32_t>(mask,
				MachineOperand::getRegMaskSize(tri->getNumRegs())));
	}

	void fail(const Twine &what)
	{
		mf->getFunction().getContext().emitError("multiverse: '" + mv_display_name(mf->getName()) +
			"': " + what + "; please report this as a bug");
	}

	void plant_entry(const MachineInstr *mi)
	{
		const MCSubtargetInfo &sti = mf->getSubtarget();
		if (arch->is_landing_pad(*mi)) {
			seen_pad = 4;
			return;
		}
		want_entry = false;
		if (pad && !seen_pad && arch->pad_goes_before(*mi)) {
			arch->emit_pad(*ap, sti);
			seen_pad = 4;
		}
		if (seen_pad != pad)
			return fail("its landing pad is not the one its descriptor records");
		/* before any label a branch could reach (merge.cpp anchors an
		 * instruction there) */
		if (mi->getParent() != &mf->front() || !mf->front().pred_empty())
			return fail("its first instruction is not in a block no branch reaches");
		/* gdb breaks on a function's first byte when it finds no
		 * prologue to skip, as without -g (on AArch64 after a bti c):
		 * not on the entry NOP, which commit could then not write */
		if (!seen_pad || arch->debugger_skips_pad)
			arch->emit_debugger_nop(*ap, sti);
		arch->emit_entry_nop(*ap, sti);
	}

public:
	SiteRecorder(AsmPrinter *a, const mv_arch *ar) : DebugHandlerBase(a), ap(a), arch(ar) {}
	/* None of the base's debug-information work: with Asm unset it
	 * calls skippedNonDebugFunction() at the start of each function. */
	void beginModule(Module *m) override
	{
		Asm = nullptr;
		module = m;
		registers = m->getFunction(MV_UNREGISTER_FN) != nullptr;
		sites.clear();
		sizes.clear();
		mf = nullptr;
	}
	/* A new function starts: its first instruction sets the state up.
	 * (MachineFunctions are freed after each function, so a new one
	 * may have the last one's address.) */
	void skippedNonDebugFunction() override { next_function(); }
	void beginFunctionImpl(const MachineFunction *) override { next_function(); }

	void next_function()
	{
		if (mf && want_entry)
			fail("it has no instruction to put the entry NOP before");
		mf = nullptr;
	}
	void endFunctionImpl(const MachineFunction *) override {}
	void endInstruction() override {}

	void beginInstruction(const MachineInstr *mi) override
	{
		if (mi->getMF() != mf) {
			mf = mi->getMF();
			Attribute a = mf->getFunction().getFnAttribute(MV_GENERIC_ATTR);
			want_entry = a.isValid() && !mf->getFunction().isDeclaration();
			seen_pad = 0;
			uint64_t most = arch->room_for_padding ? most_padding(*mf) : 0;
			unpadded = most && !arch->room_for_padding(*mf, most);
			if (want_entry)
				declare_abi_clobbers();
			if (want_entry && a.getValueAsString().getAsInteger(10, pad))
				pad = 0;
		}
		if (mi->isMetaInstruction() || mi->isPosition() || arch->emits_nothing(*mi))
			return;
		if (want_entry)
			plant_entry(mi);
		/* Conditional tail calls (jcc rel32), which LLVM forms at -Os,
		 * are not recorded: the runtime patches calls and jumps only.
		 * Such a call still reaches the variant, through the generic's
		 * entry. */
		if (!mi->isCall() || mi->isConditionalBranch())
			return;
		for (const MachineOperand &op : mi->operands()) {
			if (!op.isGlobal())
				continue;
			const auto *f = dyn_cast<Function>(op.getGlobal());
			if (f && f->hasFnAttribute(MV_STUB_ATTR)) {
				uint64_t offset = 0;
				if (f->getFnAttribute(MV_STUB_OFFSET_ATTR).getValueAsString()
					    .getAsInteger(10, offset))
					return fail("a switch's stub does not say where the switch is");
				/* an alias once AArch64's GlobalMerge has merged
				 * the object with others */
				StringRef object = f->getFnAttribute(MV_STUB_ATTR).getValueAsString();
				record(f->getParent()->getNamedValue(object), offset,
				       pad_for(*mi, *f), in_probe_variant(object, offset));
				return;
			}
			if (!f || !f->hasFnAttribute(MV_GENERIC_ATTR))
				continue;
			/* A jump to a local symbol of the same section may be
			 * assembled to 2 bytes, too short to reach a variant:
			 * only the generic's own section holds it, so only the
			 * generic's tail calls to itself are such. */
			if (f == &mf->getFunction() && f->hasLocalLinkage())
				return;
			record(f, 0, pad_for(*mi, *f));
			return;
		}
	}

	/* An upper bound of the padding mf's calls may get. */
	static uint64_t most_padding(const MachineFunction &f)
	{
		uint64_t n = 0;
		for (const MachineBasicBlock &b : f)
			for (const MachineInstr &mi : b)
				if (mi.isCall())
					for (const MachineOperand &op : mi.operands()) {
						const auto *g = op.isGlobal() ?
							dyn_cast<Function>(op.getGlobal()) : nullptr;
						if (g && (g->hasFnAttribute(MV_GENERIC_ATTR) ||
							  g->hasFnAttribute(MV_STUB_ATTR)))
							n++;
					}
		return n * (MV_INLINE_MAX + 4);
	}

	/* The padding of call mi to callee (a generic or a switch's stub):
	 * as many bytes as its variants' copies need, where this unit
	 * emitted them already (MV_SIZED_BY_ATTR), else as its ("inline",
	 * N) or inline-size=N make the site. */
	Pad pad_for(const MachineInstr &mi, const Function &callee)
	{
		Pad p;
		if (unpadded)
			return p;
		const MCExpr *size = variants_size(callee);
		int64_t n;
		if (!size)
			p.bytes = arch->pad_bytes(site_size(callee), mi.isReturn());
		else if ((p.expr = arch->pad_bytes_expr(ap->OutContext, size, mi.isReturn()))
			 ->evaluateAsAbsolute(n))
			p = Pad{ (unsigned)n, nullptr };
		return p;
	}

	/* up to this many variants, largest() costs less than threshold_count() */
	static constexpr size_t FEW_VARIANTS = 4;

	/* The largest of lengths, as max(max(a, b), c)...: each max() names
	 * its operands twice, and the assembler evaluates a symbol's
	 * expression anew wherever it is named (2 to the number of lengths
	 * times). */
	const MCExpr *largest(const std::vector<const MCExpr *> &lengths)
	{
		MCContext &ctx = ap->OutContext;
		const MCExpr *m = lengths[0];
		for (size_t i = 1; i < lengths.size(); i++) {
			const MCExpr *l = lengths[i];
			MCSymbol *sym = ctx.createTempSymbol("mv_max", true);
			/* the assembler's truth is -1: (l - m) & (l > m) */
			ap->OutStreamer->emitAssignment(sym, MCBinaryExpr::createAdd(m,
				MCBinaryExpr::createAnd(MCBinaryExpr::createSub(l, m, ctx),
					MCBinaryExpr::createGT(l, m, ctx), ctx), ctx));
			m = MCSymbolRefExpr::create(sym, ctx);
		}
		return m;
	}

	/* The largest of lengths (each from 0 to MV_INLINE_MAX), as the
	 * count of t from 1 to MV_INLINE_MAX that some length reaches: each
	 * length named once per t. */
	const MCExpr *threshold_count(const std::vector<const MCExpr *> &lengths)
	{
		MCContext &ctx = ap->OutContext;
		const MCExpr *sum = nullptr;
		for (int t = 1; t <= MV_INLINE_MAX; t++) {
			const MCExpr *some = nullptr;
			for (const MCExpr *len : lengths) {
				const MCExpr *reaches = MCBinaryExpr::createGTE(len,
					MCConstantExpr::create(t, ctx), ctx);
				some = some ? MCBinaryExpr::createOr(some, reaches, ctx) : reaches;
			}
			sum = sum ? MCBinaryExpr::createAdd(sum, some, ctx) : some;
		}
		/* the assembler's truth is -1: the sum is -size */
		return MCBinaryExpr::createSub(MCConstantExpr::create(0, ctx), sum, ctx);
	}

	/* The largest length of callee's copyable variants (0 if none), if
	 * callee is sized by them and every one is emitted already; the
	 * assembler knows their lengths, and the expression refers to code
	 * before this call only (so that no layout depends on itself).
	 * Each call's padding evaluates it some 75 times (emit_nops_expr)
	 * on each pass of the layout, so its cost counts: nested max() for
	 * a few variants, a threshold count for more.  Named once per
	 * callee (a .set), where its first call needs it. */
	const MCExpr *variants_size(const Function &callee)
	{
		Attribute a = callee.getFnAttribute(MV_SIZED_BY_ATTR);
		if (!a.isValid())
			return nullptr;
		MCContext &ctx = ap->OutContext;
		auto known = sizes.find(&callee);
		if (known != sizes.end())
			return known->second;
		std::vector<const MCExpr *> lengths;
		SmallVector<StringRef, 8> names;
		a.getValueAsString().split(names, ',');
		for (StringRef name : names) {
			const Function *body = module->getFunction(name);
			const MCExpr *len;
			int r = body ? mv_copy_length(*body, &len) : -1;
			if (r < 0)
				return nullptr;
			if (r > 0)
				lengths.push_back(len);
		}
		const MCExpr *size = MCConstantExpr::create(0, ctx);
		if (!lengths.empty()) {
			for (const MCExpr *&len : lengths) {
				/* a copy too large counts as 0, as its record says */
				MCSymbol *l = ctx.createTempSymbol("mv_len", true);
				ap->OutStreamer->emitAssignment(l, MCBinaryExpr::createAnd(len,
					MCBinaryExpr::createLTE(len, MCConstantExpr::create(
						MV_INLINE_MAX, ctx), ctx), ctx));
				len = MCSymbolRefExpr::create(l, ctx);
			}
			MCSymbol *sym = ctx.createTempSymbol("mv_size", true);
			ap->OutStreamer->emitAssignment(sym, lengths.size() <= FEW_VARIANTS ?
							largest(lengths) : threshold_count(lengths));
			size = MCSymbolRefExpr::create(sym, ctx);
		}
		sizes[&callee] = size;
		return size;
	}

	/* N of its ("inline", N) or inline-size=N (specialize.cpp), or 0. */
	static unsigned site_size(const Function &f)
	{
		unsigned size = 0;
		Attribute a = f.getFnAttribute(MV_INLINE_SIZE_ATTR);
		if (a.isValid() && a.getValueAsString().getAsInteger(10, size))
			size = 0;
		return size;
	}

	/* NOPs, then a label right before the call being emitted. */
	/* Whether mf is the variant for "not NULL" of the probe at object +
	 * offset (specialize.cpp). */
	bool in_probe_variant(StringRef object, uint64_t offset)
	{
		std::string key = mv_probe_key(object.str(), offset);
		StringRef set = mf->getFunction().getFnAttribute(MV_PROBE_SET_ATTR).getValueAsString();
		for (; !set.empty(); set = set.split(' ').second)
			if (set.starts_with(key))
				return true;
		return false;
	}

	void record(const GlobalValue *callee, uint64_t offset, Pad pad, bool in_probe = false)
	{
		if (!callee)
			return fail("a call goes to the stub of a switch this unit does not have");
		if (pad.expr)
			arch->emit_nops_expr(*ap, pad.expr);
		else if (pad.bytes)
			arch->emit_nops(*ap, mf->getSubtarget(), pad.bytes);
		MCSymbol *label = ap->OutContext.createTempSymbol("mv_site", true);
		ap->OutStreamer->emitLabel(label);
		sites.push_back({ label, callee, offset, pad, mf->getFunction().getComdat(), in_probe });
	}

	/* For the compile report (report.cpp): each function's calls here,
	 * how many are padded, and the size N of its sites. */
	void count_calls()
	{
		for (const Site &s : sites) {
			auto &c = mv_calls[s.callee->getName().str()];
			c.first++;
			c.second += s.pad.padded();
		}
		for (const Function &f : *module)
			if (f.hasFnAttribute(MV_SIZED_BY_ATTR))
				mv_site_size[f.getName().str()] = MV_SITE_SIZE_ASSEMBLER;
			else if (unsigned size = site_size(f))
				mv_site_size[f.getName().str()] = size;
	}

	/* Written, if empty, by every unit that registers: its constructor
	 * refers to the section's bounds. */
	void endModule() override
	{
		count_calls();
		mv_module_emitted(*module);
		if (!registers)
			return;
		MCStreamer &out = *ap->OutStreamer;
		out.pushSection();
		out.switchSection(mv_descriptor_section(ap->OutContext, MV_SECTION_SITE, nullptr));
		out.emitValueToAlignment(Align(8));
		for (const Site &s : sites) {
			out.switchSection(mv_descriptor_section(ap->OutContext, MV_SECTION_SITE, s.group));
			out.emitValueToAlignment(Align(8));
			/* relative, where the static link can resolve it: no
			 * load-time relocation (common/descriptor.h) */
			MCContext &ctx = ap->OutContext;
			bool local = mv_static_link_resolves(*s.callee);
			out.emitValue(mv_from_here(out, MCSymbolRefExpr::create(s.label, ctx)), 8);
			const MCExpr *callee = MCSymbolRefExpr::create(ap->getSymbol(s.callee), ctx);
			if (s.offset)
				callee = MCBinaryExpr::createAdd(callee,
					MCConstantExpr::create(s.offset, ctx), ctx);
			out.emitValue(local ? mv_from_here(out, callee) : callee, 8);
			if (s.pad.expr)
				out.emitValue(s.pad.expr, 4);
			else
				out.emitIntValue(s.pad.bytes, 4);
			out.emitIntValue((s.in_probe_variant ? MV_SITE_IN_PROBE_VARIANT : 0) |
					 MV_SITE_SITE_RELATIVE |
					 (local ? MV_SITE_CALLEE_RELATIVE : 0), 4);
		}
		out.popSection();
	}
};

/* The targets' own AsmPrinter constructors, called by ours. */
struct Hooked {
	const mv_arch *arch;
	Target original;
};
std::vector<Hooked> hooked;

AsmPrinter *with_sites(TargetMachine &tm, std::unique_ptr<MCStreamer> &&s)
{
	for (Hooked &h : hooked)
		if (tm.getTarget().getName() == StringRef(h.arch->target)) {
			AsmPrinter *ap = h.original.createAsmPrinter(tm, std::move(s));
			if (ap) {
				/* run in the reverse order of addition: the
				 * entry NOP goes before the copy's start label
				 * of a plain function (inline.cpp) */
				mv_add_inline_recorder(ap, h.arch);
				ap->addDebugHandler(std::make_unique<SiteRecorder>(ap, h.arch));
			}
			return ap;
		}
	return nullptr;
}

} // namespace

/*
 * Whether a distance to gv names the address every other record and
 * module knows it by, and the static link resolves it: a static or
 * hidden symbol, or a definition in code that is not
 * position-independent (an executable's).  Not a dso_local declaration
 * there: the linker takes the program's PLT stub for a distance to
 * another module's function.  Not a global definition in
 * position-independent code, even one it binds locally
 * (-fno-semantic-interposition, or -fPIE code linked with -shared): in a
 * shared object the dynamic linker applies no PC-relative relocation to
 * the global symbol (x86-64) or the static linker binds the distance to
 * the module's own definition (AArch64), where a program's PLT entry may
 * be the function's address (pointer equality).
 */
bool mv_static_link_resolves(const GlobalValue &gv)
{
	const Module &m = *gv.getParent();
	bool pic = m.getPICLevel() != PICLevel::NotPIC;

	if (gv.hasExternalWeakLinkage())
		return false;
	if (gv.hasLocalLinkage() || gv.hasHiddenVisibility())
		return true;
	return gv.isDSOLocal() && !gv.isDeclarationForLinker() && !pic;
}

/* value less the address it is stored at, for the next field emitted */
const MCExpr *mv_from_here(MCStreamer &out, const MCExpr *value)
{
	MCContext &ctx = out.getContext();
	MCSymbol *here = ctx.createTempSymbol();
	out.emitLabel(here);
	return MCBinaryExpr::createSub(value, MCSymbolRefExpr::create(here, ctx), ctx);
}

MCSection *mv_descriptor_section(MCContext &ctx, const char *name, const Comdat *group)
{
	unsigned flags = ELF::SHF_ALLOC | ELF::SHF_WRITE;
	if (!group)
		return ctx.getELFSection(name, ELF::SHT_PROGBITS, flags);
	return ctx.getELFSection(name, ELF::SHT_PROGBITS, flags | ELF::SHF_GROUP, 0,
				 group->getName(), true);
}

void mv_hook_asm_printers(void)
{
	if (!hooked.empty())
		return;
	for (const mv_arch *arch : { &mv_arch_x86_64, &mv_arch_aarch64 })
		for (const Target &t : TargetRegistry::targets())
			if (t.getName() == StringRef(arch->target)) {
				hooked.push_back({ arch, t });
				TargetRegistry::RegisterAsmPrinter(const_cast<Target &>(t), with_sites);
			}
}
