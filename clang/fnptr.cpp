/*
 * Calls through function-pointer switches, made patchable.
 *
 * Commit turns each call through a switch into a direct call of the
 * function the switch holds.  A call through a register has no room for
 * that on x86-64 (2 or 3 bytes), and on AArch64 blr may not become bl
 * while other threads run it.  A plugin cannot make LLVM's instruction
 * selection choose x86-64's memory form (call *sw(%rip)) that the GCC
 * front end forces.  So at the start of the pipeline, each call whose
 * callee is a plain read of a switch calls a stub of the switch instead,
 * which this unit defines in module assembler (clang/arch/):
 *
 *       call sw.mvcall              sw.mvcall:  jmp  *sw(%rip)
 *       bl   sw.mvcall              sw.mvcall:  adrp x16, sw
 *                                               ldr  x16, [x16, :lo12:sw]
 *                                               br   x16
 *
 * or through the GOT entry of a switch that may be another module's.
 * The pointer is read when the call is made, which is when C reads it.
 * The site is then a plain direct call, which commit retargets to the
 * function the switch holds; the runtime checks that the stub jumps
 * through the switch before it writes the site.  The GCC front end does
 * the same on AArch64, and for GOT-reached switches on x86-64
 * (gcc/stubs.cc).
 *
 * Example:
 *   __attribute__((multiverse)) void (*hook)(int);
 *   void f(int x) { hook(x); }        ->   f: jmp hook.mvcall
 */
#include "multiverse.h"
#include "arch.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <set>

using namespace llvm;

namespace {

std::string symbol(const GlobalValue *gv)
{
	return GlobalValue::dropLLVMManglingEscape(gv->getName()).str();
}

Function *stub_of(Module &m, GlobalVariable *sw, FunctionType *type)
{
	std::string name = symbol(sw) + ".mvcall";
	if (Function *f = m.getFunction(name))
		return f;
	Function *f = Function::Create(type, GlobalValue::ExternalLinkage, name, m);
	f->setVisibility(GlobalValue::HiddenVisibility);
	f->setDSOLocal(true);
	f->addFnAttr(MV_STUB_ATTR, sw->getName());
	/* one declaration serves calls of every type (the call's own type
	 * rules); "thunk" keeps InstCombine from rewriting the arguments
	 * of those whose type differs from the declaration's */
	f->addFnAttr("thunk");
	const mv_arch *arch = mv_arch_of(Triple(m.getTargetTriple()));
	/* A section of their own: the x86-64 assembler may shorten a jmp
	 * to a local symbol of the same section to 2 bytes, too short for
	 * commit. */
	m.appendModuleInlineAsm(".pushsection .text.multiverse.stubs,\"ax\",@progbits\n"
				".balign 16\n"
				".type " + name + ", @function\n" +
				name + ":\n" + arch->stub(m, symbol(sw), !sw->isDSOLocal()) +
				".size " + name + ", . - " + name + "\n"
				".popsection");
	return f;
}

/* The switch that the callee of call is read from, if it can be made a
 * stub call; warns about a read from a switch that cannot. */
GlobalVariable *switch_called(CallBase &call, const std::set<GlobalVariable *> &sws)
{
	auto *load = dyn_cast<LoadInst>(call.getCalledOperand());
	if (!load)
		return nullptr;
	auto *sw = dyn_cast<GlobalVariable>(load->getPointerOperand());
	if (!sw || !sws.count(sw))
		return nullptr;
	/* In the IR as Clang emitted it, only the evaluation of the
	 * arguments comes between the read and the call. */
	const char *why = nullptr;
	Function &f = *call.getFunction();
	if (!load->isSimple() || !load->getType()->isPointerTy())
		why = "a volatile or atomic read of the switch";
	else if (call.hasOperandBundles())
		why = "it carries a check of the pointer, from -fsanitize=kcfi or pointer authentication";
	else if (f.getFnAttribute("target-features").getValueAsString().contains("+retpoline"))
		why = "retpolines keep indirect calls indirect";
	if (!why)
		return sw;
	f.getContext().diagnose(DiagnosticInfoOptimizationFailure(f,
		DiagnosticLocation(call.getDebugLoc()), "multiverse: this call "
		"through function-pointer switch '" + sw->getName() + "' cannot be "
		"made patchable (" + why + "); it stays indirect after commit"));
	return nullptr;
}

} // namespace

std::set<GlobalVariable *> mv_redirect_switch_calls(Module &m,
						    const std::set<GlobalVariable *> &sws)
{
	std::set<GlobalVariable *> called;
	if (sws.empty())
		return called;
	for (Function &f : m) {
		if (f.isDeclaration())
			continue;
		for (Instruction &i : instructions(f)) {
			auto *call = dyn_cast<CallBase>(&i);
			if (!call || call->isInlineAsm())
				continue;
			GlobalVariable *sw = switch_called(*call, sws);
			if (!sw)
				continue;
			call->setCalledOperand(stub_of(m, sw, call->getFunctionType()));
			called.insert(sw);
		}
	}
	return called;
}
