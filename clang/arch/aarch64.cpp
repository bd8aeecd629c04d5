/* SPDX-License-Identifier: MIT */
/*
 * AArch64 hooks of the Clang front end (clang/arch.h).
 *
 * Entry: a nop, after the bti c that branch protection (BTI) puts first,
 * and after another nop for a debugger's breakpoint on the function to
 * cover (gdb's prologue analysis skips a bti c); commit overwrites it
 * with a b to the variant.  A function that
 * starts by signing its return address (paciasp, pac-ret) gets the nop
 * before the signing (the variant signs for itself), and under BTI a
 * bti c before the nop: paciasp lands indirect calls only as a
 * function's first instruction.  As the GCC front end (gcc/arch/aarch64.cc).
 *
 * Stub of a switch at byte d of its object obj (0 for a global switch):
 *                        [bti c;] adrp x16, obj+d; ldr x16, [x16, :lo12:obj+d]; br x16
 *   or through the GOT:  adrp x16, :got:obj; ldr x16, [x16, :got_lo12:obj];
 *                        ldr x16, [x16, #d]; br x16
 * x16 is the register the procedure call standard gives veneers and
 * stubs, and br x16 may land on a bti c.
 */
#include "../arch.h"
#include "descriptor.h"

#include "llvm/CodeGen/AsmPrinter.h"
#include "llvm/CodeGen/MachineBasicBlock.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/Target/TargetMachine.h"

#include <map>

using namespace llvm;

namespace {

enum { HINT_NOP = 0, HINT_PACIASP = 25, HINT_PACIBSP = 27, HINT_BTI_C = 34, HINT_BTI_JC = 38 };

/* The HINT space as the AsmPrinter will emit it: a HINT with its
 * immediate, or one of the instructions LLVM models on their own. */
int hint_of(const MachineInstr &mi)
{
	StringRef name = mi.getMF()->getSubtarget().getInstrInfo()->getName(mi.getOpcode());
	if (name == "HINT" && mi.getNumOperands() > 0 && mi.getOperand(0).isImm())
		return (int)mi.getOperand(0).getImm();
	if (name == "PACIASP")
		return HINT_PACIASP;
	if (name == "PACIBSP")
		return HINT_PACIBSP;
	return -1;
}

/* LLVM's function attribute, where Clang set one, else the module's flag. */
bool bti_enforced(const Module &m, const Function &f)
{
	Attribute a = f.getFnAttribute("branch-target-enforcement");
	if (a.isValid())
		return a.getValueAsString() != "false";
	auto *flag = mdconst::extract_or_null<ConstantInt>(
		m.getModuleFlag("branch-target-enforcement"));
	return flag && !flag->isZero();
}

/* The pseudo instructions that only emit a directive, which may come
 * before the first instruction of a function. */
bool emits_nothing(const MachineInstr &mi)
{
	StringRef name = mi.getMF()->getSubtarget().getInstrInfo()->getName(mi.getOpcode());
	return name == "EMITBKEY" || name == "EMITMTETAGGED";
}

unsigned pad_length(const Module &m, const Function &f)
{
	return bti_enforced(m, f) ? 4 : 0;
}

bool is_landing_pad(const MachineInstr &mi)
{
	int h = hint_of(mi);
	return h == HINT_BTI_C || h == HINT_BTI_JC;
}

bool pad_goes_before(const MachineInstr &mi)
{
	int h = hint_of(mi);
	return h == HINT_PACIASP || h == HINT_PACIBSP;
}

/* The opcode of HINT, looked up by name: the target's opcode numbers
 * are not part of LLVM's installed headers. */
void emit_hint(AsmPrinter &ap, const MCSubtargetInfo &sti, unsigned imm)
{
	static unsigned hint = ~0u;
	const MCInstrInfo &ii = *ap.TM.getMCInstrInfo();
	if (hint == ~0u)
		for (unsigned op = 0; op < ii.getNumOpcodes(); op++)
			if (ii.getName(op) == "HINT") {
				hint = op;
				break;
			}
	MCInst inst;
	inst.setOpcode(hint);
	inst.addOperand(MCOperand::createImm(imm));
	ap.OutStreamer->emitInstruction(inst, sti);
}

void emit_pad(AsmPrinter &ap, const MCSubtargetInfo &sti)
{
	emit_hint(ap, sti, HINT_BTI_C);
}

void emit_entry_nop(AsmPrinter &ap, const MCSubtargetInfo &sti)
{
	emit_hint(ap, sti, HINT_NOP);
}

/* A stub is reached by bl, or through a linker's veneer (br x16) when
 * far: under BTI it starts with a bti c. */
std::string stub(const Module &m, const std::string &object, uint64_t offset, bool got, bool)
{
	auto *flag = mdconst::extract_or_null<ConstantInt>(
		m.getModuleFlag("branch-target-enforcement"));
	std::string pad = flag && !flag->isZero() ? "\thint\t#34\n" : "";
	std::string d = std::to_string(offset);
	if (got) {
		if (offset % 8 || offset >= 4096 * 8)   /* ldr's unsigned offset */
			return "";
		return pad + "\tadrp\tx16, :got:" + object + "\n\tldr\tx16, [x16, :got_lo12:" +
		       object + "]\n\tldr\tx16, [x16, #" + d + "]\n\tbr\tx16\n";
	}
	std::string at = object + "+" + d;
	return pad + "\tadrp\tx16, " + at + "\n\tldr\tx16, [x16, :lo12:" + at +
	       "]\n\tbr\tx16\n";
}

/* bl and b are one instruction, ret one more; sizes round up to whole
 * instructions */
unsigned pad_bytes(unsigned size, bool tail)
{
	size = (size + 3) & ~3u;
	return size <= 4 ? 0 : size - 4 + (tail ? 4 : 0);
}

/* The assembler's truth is -1 (all bits), so x & (a > b) is x or 0. */
const MCExpr *pad_bytes_expr(MCContext &ctx, const MCExpr *size, bool tail)
{
	const MCExpr *whole = MCBinaryExpr::createAnd(MCBinaryExpr::createAdd(size,
		MCConstantExpr::create(3, ctx), ctx), MCConstantExpr::create(-4, ctx), ctx);
	return MCBinaryExpr::createAnd(
		MCBinaryExpr::createSub(whole, MCConstantExpr::create(tail ? 0 : 4, ctx), ctx),
		MCBinaryExpr::createGT(whole, MCConstantExpr::create(4, ctx), ctx), ctx);
}

/* .fill of instruction words (little-endian, as the targets here are):
 * more than one NOP starts with a branch over the rest, so that the
 * padding runs one instruction (runtime/region.c), one .fill per length
 * there may be, counted 1 for the length chosen (a .fill's value must be
 * a constant). */
void emit_nops_expr(AsmPrinter &ap, const MCExpr *bytes)
{
	MCContext &ctx = ap.OutContext;
	auto constant = [&](int64_t v) { return MCConstantExpr::create(v, ctx); };
	for (unsigned n = 8; n <= MV_INLINE_MAX; n += 4)
		ap.OutStreamer->emitFill(*MCBinaryExpr::createAnd(MCBinaryExpr::createEQ(bytes,
			constant(n), ctx), constant(1), ctx), 4, 0x14000000 | n / 4);  /* b .+n */
	const MCExpr *nops = MCBinaryExpr::createSub(MCBinaryExpr::createLShr(bytes,
		constant(2), ctx), MCBinaryExpr::createAnd(MCBinaryExpr::createGT(bytes,
		constant(4), ctx), constant(1), ctx), ctx);
	ap.OutStreamer->emitFill(*nops, 4, 0xd503201f);
}

/* Reach, in bytes either way, of the conditional branches: tbz and tbnz
 * (14-bit offsets), cbz, cbnz and b.cond (19-bit); b reaches 128 MiB. */
uint64_t reach(StringRef name)
{
	if (name.starts_with("TBZ") || name.starts_with("TBNZ"))
		return 1u << 15;
	if (name.starts_with("CBZ") || name.starts_with("CBNZ") || name == "Bcc")
		return 1u << 20;
	return 0;
}

bool room_for_padding(const MachineFunction &mf, uint64_t bytes)
{
	const TargetInstrInfo &tii = *mf.getSubtarget().getInstrInfo();
	std::map<const MachineBasicBlock *, uint64_t> start;
	uint64_t at = 0;
	for (const MachineBasicBlock &b : mf) {
		at += b.getAlignment().value() - 1;     /* at most */
		start[&b] = at;
		for (const MachineInstr &mi : b)
			at += tii.getInstSizeInBytes(mi);
	}
	for (const MachineBasicBlock &b : mf) {
		at = start[&b];
		for (const MachineInstr &mi : b) {
			uint64_t r = mi.isConditionalBranch() ? reach(tii.getName(mi.getOpcode())) : 0;
			for (const MachineOperand &op : mi.operands())
				if (r && op.isMBB()) {
					uint64_t to = start[op.getMBB()];
					if ((to > at ? to - at : at - to) + bytes >= r)
						return false;
				}
			at += tii.getInstSizeInBytes(mi);
		}
	}
	return true;
}

/* one nop each (MCStreamer::emitNops needs a nop size the AArch64
 * backend does not give), after a branch over them where more than one
 * (a word, as emit_nops_expr() writes it) */
void emit_nops(AsmPrinter &ap, const MCSubtargetInfo &sti, unsigned bytes)
{
	unsigned i = 0;
	if (bytes >= 8) {
		ap.OutStreamer->emitIntValue(0x14000000 | bytes / 4, 4);        /* b .+bytes */
		i = 1;
	}
	for (; i < bytes / 4; i++)
		emit_hint(ap, sti, HINT_NOP);
}

/* adrp moves with its page relocated; adr and literal loads reach only
 * 1 MiB, which a copy may be beyond. */
int pc_relative(const MachineInstr &mi, mv_arch_reloc *r)
{
	StringRef name = mi.getMF()->getSubtarget().getInstrInfo()->getName(mi.getOpcode());
	if (name == "ADRP") {
		r->kind = MV_RELOC_AARCH64_ADRP;
		r->after = false;
		r->field = 0;
		return 1;
	}
	if (name == "ADR" || name == "PRFMl" || (name.starts_with("LDR") && name.ends_with("l")))
		return -1;
	return 0;
}

const char *const stack_registers[] = { "SP", "WSP", "FP", "W29", nullptr };

} // namespace

const mv_arch mv_arch_aarch64 = {
	"aarch64", MV_MACHINE_AARCH64, emits_nothing, pad_length, is_landing_pad, pad_goes_before,
	emit_pad, emit_entry_nop, emit_entry_nop, true, stub,
	"AArch64 stubs reach only 8-byte aligned members in the first 32 KiB of such an object",
	false,
	pad_bytes, emit_nops, pad_bytes_expr, emit_nops_expr, room_for_padding, pc_relative,
	stack_registers,
};
