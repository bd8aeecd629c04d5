/* SPDX-License-Identifier: MIT */
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

struct Called {
	GlobalVariable *object;
	uint64_t offset;
	const mv_fnptr_switch *sw;
};

void error(Function &f, const CallBase &call, const Twine &what)
{
	f.getContext().diagnose(DiagnosticInfoUnsupported(f, "multiverse: " + what,
		call.getDebugLoc(), DS_Error));
}

/* Retpolines, or LVI hardening of indirect branches: the stub must not
 * jump through memory either. */
bool has_retpolines(const Function &f)
{
	StringRef features = f.getFnAttribute("target-features").getValueAsString();
	return features.contains("+retpoline") || features.contains("+lvi-cfi");
}

/* The stub of the switch c calls through, or null after an error. */
Function *stub_of(Module &m, const Called &c, CallBase &call)
{
	bool retpoline = has_retpolines(*call.getFunction());
	std::string name = symbol(c.object) +
		(c.offset ? "." + std::to_string(c.offset) : "") +
		(retpoline ? ".mvcall.retpoline" : ".mvcall");
	if (Function *f = m.getFunction(name))
		return f;
	const mv_arch *arch = mv_arch_of(Triple(m.getTargetTriple()));
	std::string code = arch->stub(m, symbol(c.object), c.offset, !c.object->isDSOLocal(),
				      retpoline);
	if (code.empty()) {
		error(*call.getFunction(), call, "calls through function-pointer switch '" +
		      c.sw->name + "' cannot be made patchable: it lies " +
		      Twine(c.offset) + " bytes into an object another module may define, "
		      "and " + arch->stub_reach);
		return nullptr;
	}
	Function *f = Function::Create(call.getFunctionType(), GlobalValue::ExternalLinkage,
				       name, m);
	f->setVisibility(GlobalValue::HiddenVisibility);
	f->setDSOLocal(true);
	f->addFnAttr(MV_STUB_ATTR, c.object->getName());
	/* a member switch's own ("inline", N) is not looked up here yet */
	if (unsigned size = c.offset ? mv_default_inline_size :
			    mv_inline_size(c.object->getName().str()))
		f->addFnAttr(MV_INLINE_SIZE_ATTR, std::to_string(size));
	f->addFnAttr(MV_STUB_OFFSET_ATTR, std::to_string(c.offset));
	/* one declaration serves calls of every type (the call's own type
	 * rules); "thunk" keeps InstCombine from rewriting the arguments
	 * of those whose type differs from the declaration's */
	f->addFnAttr("thunk");
	/* A section of their own: the x86-64 assembler may shorten a jmp
	 * to a local symbol of the same section to 2 bytes, too short for
	 * commit. */
	m.appendModuleInlineAsm(".pushsection .text.multiverse.stubs,\"ax\",@progbits\n"
				".balign 16\n"
				".type " + name + ", @function\n" +
				name + ":\n" + code +
				".size " + name + ", . - " + name + "\n"
				".popsection");
	return f;
}

/* The switch that the callee of call is read from, if it can be made a
 * stub call; an error for a call through a switch that no commit could
 * bind (a volatile or atomic read is no read of a switch). */
bool switch_called(CallBase &call, const mv_fnptr_switches &sws, Called *c)
{
	auto *load = dyn_cast<LoadInst>(call.getCalledOperand());
	if (!load)
		return false;
	c->object = mv_object_of(load->getPointerOperand(),
				 call.getModule()->getDataLayout(), &c->offset);
	auto it = sws.find({ c->object, c->offset });
	if (!c->object || it == sws.end())
		return false;
	c->sw = &it->second;
	/* In the IR as Clang emitted it, only the evaluation of the
	 * arguments comes between the read and the call. */
	if (!load->isSimple() || !load->getType()->isPointerTy())
		return false;
	const char *why = nullptr;
	Function &f = *call.getFunction();
	bool large = f.getParent()->getCodeModel() == CodeModel::Large;
	if (call.hasOperandBundles())
		why = "it carries a check of the pointer, from -fsanitize=kcfi or pointer authentication";
	else if (large && has_retpolines(f))
		why = "under -mcmodel=large with retpolines";
	if (!why)
		return true;
	error(f, call, "this call through function-pointer switch '" + c->sw->name +
	      "' cannot be bound by commit (" + why + "); a call through a switch goes "
	      "where the last commit bound it, so it must be one the runtime can rewrite");
	return false;
}

} // namespace

std::set<Constant *> mv_redirect_switch_calls(Module &m, const mv_fnptr_switches &sws)
{
	std::set<Constant *> called;
	if (sws.empty())
		return called;
	for (Function &f : m) {
		if (f.isDeclaration())
			continue;
		for (Instruction &i : instructions(f)) {
			auto *call = dyn_cast<CallBase>(&i);
			Called c;
			if (!call || call->isInlineAsm() || !switch_called(*call, sws, &c))
				continue;
			if (Function *stub = stub_of(m, c, *call)) {
				call->setCalledOperand(stub);
				called.insert(c.sw->addr);
				/* the jump of the GOT and retpoline forms is no
				 * site (clang/arch.h) */
				auto *ci = dyn_cast<CallInst>(call);
				if (ci && !ci->isMustTailCall() &&
				    (!c.object->isDSOLocal() || has_retpolines(f)) &&
				    mv_arch_of(Triple(m.getTargetTriple()))->conditional_tail_calls)
					ci->setTailCallKind(CallInst::TCK_NoTail);
			}
		}
	}
	return called;
}
