/* SPDX-License-Identifier: MIT */
/*
 * x86-64 hooks of the Clang front end (clang/arch.h).
 *
 * Entry: the 5-byte NOP 0f 1f 44 00 00, which commit overwrites with a
 * jmp rel32.  It follows the endbr64 that -fcf-protection=branch puts
 * first (not with nocf_check), else the 4-byte NOP 0f 1f 40 00 that a
 * debugger's breakpoint on the function may cover.
 *
 * Stub of a switch at byte d of its object obj (0 for a global switch):
 *                        jmp *obj+d(%rip)
 *   or through the GOT:  movq obj@GOTPCREL(%rip), %r11; jmp *d(%r11)
 *   or, called from code with retpolines, a retpoline of its own:
 *       movq obj+d(%rip), %r11; jmp 1f
 *       1: call 3f; 2: pause; lfence; jmp 2b; 3: movq %r11, (%rsp); ret
 *   (through the GOT: movq obj@GOTPCREL(%rip), %r11; movq d(%r11), %r11)
 * r11 carries no argument and no call preserves it (SysV ABI); PLT
 * entries use it too.  int3 pads the stub to 16 bytes, so that the
 * runtime can read its longest trampoline form there.  The first form
 * is itself a recorded call site of the switch (clang/arch.h), which
 * binds the calls of the large code model (movabs $stub; call *reg);
 * there the GOT form starts with a recorded jmp rel32 to its next
 * instruction, which commit follows to the switch.
 */
#include "../arch.h"
#include "descriptor.h"
#include "stub-x86_64.h"

#include "llvm/CodeGen/AsmPrinter.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCStreamer.h"

using namespace llvm;

namespace {

bool emits_nothing(const MachineInstr &)
{
	return false;
}

unsigned pad_length(const Module &m, const Function &f)
{
	auto *flag = mdconst::extract_or_null<ConstantInt>(m.getModuleFlag("cf-protection-branch"));
	return flag && !flag->isZero() && !f.doesNoCfCheck() ? 4 : 0;
}

bool is_landing_pad(const MachineInstr &mi)
{
	return mi.getMF()->getSubtarget().getInstrInfo()->getName(mi.getOpcode()) == "ENDBR64";
}

bool pad_goes_before(const MachineInstr &)
{
	return false;
}

void emit_pad(AsmPrinter &ap, const MCSubtargetInfo &)
{
	ap.OutStreamer->emitBytes(StringRef("\xf3\x0f\x1e\xfa", 4));          /* endbr64 */
}

void emit_entry_nop(AsmPrinter &ap, const MCSubtargetInfo &)
{
	ap.OutStreamer->emitBytes(StringRef("\x0f\x1f\x44\x00\x00", 5));      /* nopl */
}

void emit_debugger_nop(AsmPrinter &ap, const MCSubtargetInfo &)
{
	ap.OutStreamer->emitBytes(StringRef("\x0f\x1f\x40\x00", 4));          /* nopl 0(%rax) */
}

std::string stub(const Module &m, const std::string &object, uint64_t offset, bool got,
		 bool retpoline)
{
	std::string d = std::to_string(offset);
	if (retpoline)
		return (got ? "\tmovq\t" + object + "@GOTPCREL(%rip), %r11\n\tmovq\t" + d +
			      "(%r11), %r11\n" :
			      "\tmovq\t" + object + "+" + d + "(%rip), %r11\n") +
		       MV_X86_RETPOLINE_R11 "\t.balign 16, 0xcc\n";
	std::string record = "\t.pushsection " MV_SECTION_SITE ",\"aw\",@progbits\n"
		"\t.balign 8\n\t.quad 1b - ., " + object + "+" + d + "\n\t.long 0, " +
		std::to_string(MV_SITE_SITE_RELATIVE) + "\n\t.popsection\n";
	/* the large code model calls it through a register */
	bool large = m.getCodeModel() == CodeModel::Large;
	auto *cf = mdconst::extract_or_null<ConstantInt>(m.getModuleFlag("cf-protection-branch"));
	std::string pad = large && cf && !cf->isZero() ? "\tendbr64\n" : "";
	std::string got_form = "\tmovq\t" + object + "@GOTPCREL(%rip), %r11\n\tjmp\t*" + d +
			       "(%r11)\n\t.balign 16, 0xcc\n";
	if (got && !large)
		return got_form;
	/* there a jmp rel32 to the GOT form is the site, which commit
	 * follows to the switch */
	if (got)
		return pad + "1:\t.byte\t0xe9\n\t.long\t0\n" + got_form + record;
	/* jmp *sw(%rip) is a site the runtime retargets: recorded */
	return pad + "1:\tjmp\t*" + object + "+" + d + "(%rip)\n\t.balign 16, 0xcc\n" + record;
}

/* call rel32 and jmp rel32 are 5 bytes, ret 1 */
unsigned pad_bytes(unsigned size, bool tail)
{
	return size <= 5 ? 0 : size - 5 + (tail ? 1 : 0);
}

/* The assembler's truth is -1 (all bits), so x & (a > b) is x or 0. */
const MCExpr *pad_bytes_expr(MCContext &ctx, const MCExpr *size, bool tail)
{
	const MCExpr *call = MCConstantExpr::create(5, ctx);
	return MCBinaryExpr::createAnd(
		MCBinaryExpr::createSub(size, MCConstantExpr::create(tail ? 4 : 5, ctx), ctx),
		MCBinaryExpr::createGT(size, call, ctx), ctx);
}

/* Multi-byte NOPs of up to 11 bytes, by length. */
const char *const nop[12] = {
	"", "\x90", "\x66\x90", "\x0f\x1f\x00", "\x0f\x1f\x40\x00",
	"\x0f\x1f\x44\x00\x00", "\x66\x0f\x1f\x44\x00\x00",
	"\x0f\x1f\x80\x00\x00\x00\x00", "\x0f\x1f\x84\x00\x00\x00\x00\x00",
	"\x66\x0f\x1f\x84\x00\x00\x00\x00\x00",
	"\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00",
	"\x66\x66\x2e\x0f\x1f\x84\x00\x00\x00\x00\x00",
};

/* len bytes of nop[n] from at, as a .fill's value (little-endian) */
uint64_t nop_bytes(unsigned n, unsigned at, unsigned len)
{
	uint64_t v = 0;
	for (unsigned i = len; i--;)
		v = v << 8 | (uint8_t)nop[n][at + i];
	return v;
}

/* The padding runs one instruction: a NOP of its length, or beyond 11
 * bytes a jump over NOPs (runtime/region.c).  .nops takes only a
 * constant, and a .fill's value too: one .fill per length there may be,
 * counted 1 for the length chosen, 0 for others; a .fill's value has 4
 * bytes (more are zeros), so longer NOPs take several. */
void emit_nops_expr(AsmPrinter &ap, const MCExpr *bytes)
{
	MCContext &ctx = ap.OutContext;
	auto is = [&](unsigned n) {
		return MCBinaryExpr::createAnd(MCBinaryExpr::createEQ(bytes,
			MCConstantExpr::create(n, ctx), ctx), MCConstantExpr::create(1, ctx), ctx);
	};
	for (unsigned n = 1; n <= 11; n++)
		for (unsigned at = 0; at < n; at += 4) {
			unsigned len = n - at < 4 ? n - at : 4;
			ap.OutStreamer->emitFill(*is(n), len, nop_bytes(n, at, len));
		}
	for (unsigned n = 12; n <= MV_INLINE_MAX + 1; n++)
		ap.OutStreamer->emitFill(*is(n), 2, 0xeb | (n - 2) << 8);       /* jmp .+n */
	/* after the jump, NOPs of 8, 4, 2 and 1 bytes: a bit field each */
	const MCExpr *rest = MCBinaryExpr::createAnd(MCBinaryExpr::createGT(bytes,
		MCConstantExpr::create(11, ctx), ctx), MCBinaryExpr::createSub(bytes,
		MCConstantExpr::create(2, ctx), ctx), ctx);
	for (unsigned log2 = 4; log2--;) {
		const MCExpr *n = MCBinaryExpr::createLShr(rest,
			MCConstantExpr::create(log2, ctx), ctx);
		if (log2 < 3)
			n = MCBinaryExpr::createAnd(n, MCConstantExpr::create(1, ctx), ctx);
		/* the 8-byte NOP's last 4 bytes are zeros */
		ap.OutStreamer->emitFill(*n, 1u << log2, nop_bytes(1u << log2, 0, 1u << log2));
	}
}

/* As bytes: MCStreamer::emitNops writes nothing with -S (the assembler
 * text streamer does not have it). */
void emit_nops(AsmPrinter &ap, const MCSubtargetInfo &, unsigned bytes)
{
	if (bytes > 11) {
		const char jmp[2] = { '\xeb', (char)(bytes - 2) };    /* jmp .+bytes */
		ap.OutStreamer->emitBytes(StringRef(jmp, 2));
		bytes -= 2;
	}
	while (bytes) {
		unsigned n = bytes > 11 ? 11 : bytes;
		ap.OutStreamer->emitBytes(StringRef(nop[n], n));
		bytes -= n;
	}
}

/*
 * The bytes of mi's immediate operand, which the encoding puts after the
 * displacement, as the target's instruction description says (its
 * TSFlags: 4 bits at ImmShift, X86BaseInfo.h, which LLVM does not
 * install), and the short form the encoder picks for some; -1 if it
 * cannot say.  The runtime checks the field's instruction before it
 * relocates it, so a wrong answer costs a copy, not correctness.  The layout is checked once against
 * instructions whose immediates are known, so that another LLVM with
 * another layout makes variants with %rip references "not inlinable"
 * rather than wrongly described.
 */
enum { IMM_SHIFT = 18, IMM_NONE = 0, IMM_8 = 1, IMM_8_REG = 3, IMM_16 = 4, IMM_32 = 6,
       IMM_32_SIGNED = 8 };

int imm_code(const MCInstrDesc &d)
{
	return (int)((d.TSFlags >> IMM_SHIFT) & 15);
}

bool layout_checked(const TargetInstrInfo &ii)
{
	static int ok = -1;
	if (ok >= 0)
		return ok;
	const std::pair<const char *, int> known[] = {
		{ "MOV8mi", IMM_8 }, { "MOV16mi", IMM_16 }, { "MOV32mi", IMM_32 },
		{ "MOV64mi32", IMM_32_SIGNED }, { "MOV32rm", IMM_NONE }, { "ADD32mr", IMM_NONE },
	};
	unsigned found = 0;
	ok = 1;
	for (unsigned op = 0; op < ii.getNumOpcodes(); op++)
		for (auto &[name, code] : known)
			if (ii.getName(op) == name) {
				found++;
				ok &= imm_code(ii.get(op)) == code;
			}
	ok &= found == std::size(known);
	return ok;
}

/* Whether the AsmPrinter encodes mi, an arithmetic instruction with a
 * 16- or 32-bit immediate that fits in 8 bits, in its short form (it
 * does for these, X86EncodingOptimization.cpp). */
bool short_immediate(const MachineInstr &mi, StringRef name)
{
	static const char *const arith[] = { "ADC", "ADD", "AND", "CMP", "OR", "SBB", "SUB",
					     "XOR", "IMUL" };
	bool listed = false;
	for (const char *a : arith)
		listed |= name.starts_with(a);
	if (!listed)
		return false;
	for (unsigned i = mi.getNumExplicitOperands(); i-- > 0;)
		if (mi.getOperand(i).isImm())
			return isInt<8>(mi.getOperand(i).getImm());
	return false;
}

int immediate_bytes(const MachineInstr &mi)
{
	const TargetInstrInfo &ii = *mi.getMF()->getSubtarget().getInstrInfo();
	if (!layout_checked(ii))
		return -1;
	switch (imm_code(mi.getDesc())) {
	case IMM_NONE: return 0;
	case IMM_8: case IMM_8_REG: return 1;
	case IMM_16: return short_immediate(mi, ii.getName(mi.getOpcode())) ? 1 : 2;
	case IMM_32: case IMM_32_SIGNED:
		return short_immediate(mi, ii.getName(mi.getOpcode())) ? 1 : 4;
	default: return -1;     /* PC-relative immediates, 64-bit ones */
	}
}

/* A memory operand based on %rip: its disp32 is 4 bytes before the
 * immediate, if any, which ends the instruction. */
int pc_relative(const MachineInstr &mi, mv_arch_reloc *r)
{
	const TargetRegisterInfo *tri = mi.getMF()->getSubtarget().getRegisterInfo();
	unsigned rip = 0;
	for (const MachineOperand &op : mi.operands())
		if (op.isReg() && op.getReg() && StringRef(tri->getName(op.getReg())) == "RIP")
			rip++;
	if (!rip)
		return 0;
	int imm = immediate_bytes(mi);
	if (rip != 1 || imm < 0)
		return -1;
	r->kind = MV_RELOC_X86_RIP32;
	r->after = true;
	r->field = -(4 + imm);
	return 1;
}

const char *const stack_registers[] = {
	"RSP", "ESP", "SP", "SPL", "RBP", "EBP", "BP", "BPL", nullptr
};

} // namespace

const mv_arch mv_arch_x86_64 = {
	"x86-64", MV_MACHINE_X86_64, emits_nothing, pad_length, is_landing_pad, pad_goes_before,
	emit_pad, emit_entry_nop, emit_debugger_nop, false, stub, nullptr, true, pad_bytes, emit_nops, pad_bytes_expr,
	emit_nops_expr, nullptr, pc_relative,
	stack_registers,
};
