/* SPDX-License-Identifier: MIT */
/*
 * x86-64 hooks of the Clang front end (clang/arch.h).
 *
 * Entry: the 5-byte NOP 0f 1f 44 00 00, after the endbr64 that
 * -fcf-protection=branch puts first (not with nocf_check), which commit
 * overwrites with a jmp rel32.
 *
 * Stub of a switch at byte d of its object obj (0 for a global switch):
 *                        jmp *obj+d(%rip)
 *   or through the GOT:  movq obj@GOTPCREL(%rip), %r11; jmp *d(%r11)
 * r11 carries no argument and no call preserves it (SysV ABI); PLT
 * entries use it too.  int3 pads the stub to 16 bytes, so that the
 * runtime can read its longest trampoline form there.
 */
#include "../arch.h"
#include "descriptor.h"

#include "llvm/CodeGen/AsmPrinter.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
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

std::string stub(const Module &, const std::string &object, uint64_t offset, bool got)
{
	std::string d = std::to_string(offset);
	return (got ? "\tmovq\t" + object + "@GOTPCREL(%rip), %r11\n\tjmp\t*" + d + "(%r11)\n"
		    : "\tjmp\t*" + object + "+" + d + "(%rip)\n") + "\t.balign 16, 0xcc\n";
}

/* call rel32 and jmp rel32 are 5 bytes, ret 1 */
unsigned pad_bytes(unsigned size, bool tail)
{
	return size <= 5 ? 0 : size - 5 + (tail ? 1 : 0);
}

/* the multi-byte NOPs of the target's longest kind */
void emit_nops(AsmPrinter &ap, const MCSubtargetInfo &sti, unsigned bytes)
{
	ap.OutStreamer->emitNops(bytes, 0, SMLoc(), sti);
}

} // namespace

const mv_arch mv_arch_x86_64 = {
	"x86-64", MV_MACHINE_X86_64, emits_nothing, pad_length, is_landing_pad, pad_goes_before,
	emit_pad, emit_entry_nop, stub, nullptr, pad_bytes, emit_nops,
};
