/* SPDX-License-Identifier: MIT */
/*
 * Probes: a function-pointer switch that a multiversed function compares
 * with NULL, as in
 *
 *	__attribute__((multiverse)) void (*trace)(int);
 *	__attribute__((multiverse)) void work(int x)
 *	{
 *		if (trace)
 *			trace(x);
 *		...
 *	}
 *
 * The function gets a variant for "NULL", with neither test nor call, and
 * one for "not NULL", whose call stays a call through the switch: fnptr.cpp
 * makes it a call of the switch's stub, a site that commit binds to the
 * pointer's value.  So only the comparisons become constants, never the
 * loads.  A load counts when it goes into nothing but comparisons with
 * NULL (also as an integer, with 0) and the called operand of calls, and
 * the function reads the switch by no other load (atomic, or of another
 * type): then every call through it is a site.  Unoptimized, a copy in a local variable is a store and a load of
 * another object, which no site reads: such a function is not specialized
 * on the probe (as with GCC).
 */
#include "multiverse.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace {

/* An equality comparison of v with NULL, or with 0 after a conversion to
 * an integer ((uintptr_t)p != 0). */
bool null_test(User *u, Value *v)
{
	auto *cmp = dyn_cast<ICmpInst>(u);
	if (!cmp || !cmp->isEquality())
		return false;
	Value *other = cmp->getOperand(0) == v ? cmp->getOperand(1) : cmp->getOperand(0);
	return (cmp->getOperand(0) == v || cmp->getOperand(1) == v) &&
	       (isa<ConstantPointerNull>(other) ||
		(isa<ConstantInt>(other) && cast<ConstantInt>(other)->isZero()));
}

/* A use that -fsanitize=function's check before a call makes of the
 * callee: the type signature before it read (loads marked nosanitize,
 * through a getelementptr), or its address passed as a number to the
 * report.  In a variant for "not NULL" the check reads what the pointer
 * holds then, as before any call through a switch (README,
 * -fsanitize=function); it does not decide where the call goes. */
bool sanitizer_use(User *u)
{
	if (auto *gep = dyn_cast<GetElementPtrInst>(u)) {
		for (User *g : gep->users()) {
			auto *load = dyn_cast<LoadInst>(g);
			if (!load || !load->hasMetadata(LLVMContext::MD_nosanitize))
				return false;
		}
		return true;
	}
	auto *call = dyn_cast<CallBase>(u);
	Function *f = call ? call->getCalledFunction() : nullptr;
	return f && f->getName().starts_with("__ubsan_handle_");
}

/* The NULL tests that load goes into; false if it goes elsewhere too
 * than into those, the called operand of calls and a sanitizer's check. */
bool tests_of(LoadInst *load, std::vector<ICmpInst *> &tests)
{
	bool traced = true;
	for (Use &u : load->uses()) {
		auto *call = dyn_cast<CallBase>(u.getUser());
		if (null_test(u.getUser(), load)) {
			tests.push_back(cast<ICmpInst>(u.getUser()));
		} else if (auto *num = dyn_cast<PtrToIntInst>(u.getUser())) {
			for (User *nu : num->users()) {
				if (null_test(nu, num))
					tests.push_back(cast<ICmpInst>(nu));
				else if (!sanitizer_use(nu))
					traced = false;
			}
		} else if (sanitizer_use(u.getUser())) {
			continue;
		} else if (!call || !call->isCallee(&u)) {
			traced = false;
		}
	}
	return traced;
}

} // namespace

enum mv_probe_use mv_probe_use(const std::vector<LoadInst *> &loads, bool other_reads)
{
	std::vector<ICmpInst *> tests;
	bool traced = !other_reads;
	for (LoadInst *load : loads)
		traced &= tests_of(load, tests);
	if (tests.empty())
		return MV_PROBE_NONE;
	return traced ? MV_PROBE_TESTED : MV_PROBE_UNTRACED;
}

void mv_probe_fold(const std::vector<LoadInst *> &loads, bool set)
{
	std::vector<ICmpInst *> tests;
	for (LoadInst *load : loads)
		tests_of(load, tests);
	for (ICmpInst *cmp : tests) {
		bool ne = cmp->getPredicate() == ICmpInst::ICMP_NE;
		cmp->replaceAllUsesWith(ConstantInt::getBool(cmp->getType(), ne == set));
		cmp->eraseFromParent();
	}
}
