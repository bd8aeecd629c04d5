/* SPDX-License-Identifier: MIT */
/*
 * The descriptors (common/descriptor.h) as IR data, in the sections the
 * GCC front end writes them to (gcc/descriptors.cc), and the constructor
 * and destructor that register the module with the runtime through its
 * hidden __start_/__stop_ section bounds.  Call sites are not here: only
 * the AsmPrinter knows where they are (sites.cpp).
 */
#include "multiverse.h"
#include "descriptor.h"
#include "arch.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace {

Constant *cstring(Module &m, StringRef s)
{
	auto *init = ConstantDataArray::getString(m.getContext(), s);
	auto *gv = new GlobalVariable(m, init->getType(), true, GlobalValue::PrivateLinkage,
				      init, ".mv.name");
	gv->setSection(".rodata.multiverse");
	gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
	return gv;
}

GlobalVariable *record(Module &m, Constant *init, StringRef section, const Twine &name,
		       Comdat *group, std::vector<GlobalValue *> &used)
{
	/* writable, as the sections are (gcc/descriptors.cc): a read-only
	 * record would make LLVM give the section other flags than the
	 * empty one emitted below */
	auto *gv = new GlobalVariable(m, init->getType(), false, GlobalValue::PrivateLinkage,
				      init, name);
	gv->setSection(section);
	gv->setAlignment(Align(8));
	/* kept or dropped with what it describes (sites.cpp) */
	gv->setComdat(group);
	used.push_back(gv);
	return gv;
}

Constant *bound(Module &m, const char *name)
{
	auto *gv = m.getNamedGlobal(name);
	if (!gv) {
		gv = new GlobalVariable(m, Type::getInt8Ty(m.getContext()), false,
					GlobalValue::ExternalLinkage, nullptr, name);
		gv->setVisibility(GlobalValue::HiddenVisibility);
	}
	return gv;
}

} // namespace

void mv_emit_var(Module &m, Constant *addr, const std::string &name, unsigned width,
		 unsigned decl_flags, std::vector<GlobalValue *> &used)
{
	LLVMContext &c = m.getContext();
	Type *i32 = Type::getInt32Ty(c), *i64 = Type::getInt64Ty(c);
	unsigned flags = (decl_flags & MV_DECL_SIGNED ? MV_VAR_SIGNED : 0) |
			 (decl_flags & MV_DECL_FNPTR ? MV_VAR_FNPTR : 0) |
			 (decl_flags & MV_DECL_TRACKED ? MV_VAR_TRACKED : 0);
	Constant *init = ConstantStruct::getAnon({ addr, cstring(m, name),
		ConstantInt::get(i32, width), ConstantInt::get(i32, flags),
		ConstantInt::get(i64, 0) });
	uint64_t offset;
	GlobalVariable *object = mv_object_of(addr, m.getDataLayout(), &offset);
	record(m, init, MV_SECTION_VAR, ".mv.var", object ? object->getComdat() : nullptr,
	       used);
}

void mv_emit_function(Module &m, Function &f, const std::vector<mv_record> &records,
		      std::vector<GlobalValue *> &used)
{
	LLVMContext &c = m.getContext();
	Type *i32 = Type::getInt32Ty(c), *i64 = Type::getInt64Ty(c);
	PointerType *ptr = PointerType::getUnqual(c);
	std::vector<Constant *> variants;
	for (const mv_record &r : records) {
		std::vector<Constant *> guards;
		for (const mv_range &g : r.guards)
			guards.push_back(ConstantStruct::getAnon({ g.sw,
				ConstantInt::get(i64, g.low), ConstantInt::get(i64, g.high) }));
		auto *arr = ConstantArray::get(ArrayType::get(guards[0]->getType(), guards.size()),
					       guards);
		auto *gv = record(m, arr, MV_SECTION_VARIANTS, ".mv.guards", f.getComdat(), used);
		/* not analysed for inlining: inline.cpp writes the table
		 * again once the AsmPrinter has seen the variant's code */
		Type *i16 = Type::getInt16Ty(c);
		variants.push_back(ConstantStruct::getAnon({ r.body, gv,
			ConstantInt::get(i32, guards.size()), ConstantInt::get(i16, 0),
			ConstantInt::get(i16, 0), ConstantPointerNull::get(ptr),
			ConstantInt::get(i32, 0), ConstantInt::get(i32, MV_INLINE_UNKNOWN) }));
	}
	/* The entry through a local alias: f itself may resolve elsewhere,
	 * to a PLT entry that a non-PIE executable makes f's address. */
	auto *local = GlobalAlias::create(GlobalValue::PrivateLinkage, f.getName() + ".mventry", &f);
	unsigned pad = 0;
	if (f.getFnAttribute(MV_GENERIC_ATTR).getValueAsString().getAsInteger(10, pad))
		pad = 0;
	bool pad_nop = pad && mv_arch_of(Triple(m.getTargetTriple()))->debugger_skips_pad;
	Constant *entry = ConstantExpr::getGetElementPtr(Type::getInt8Ty(c), local,
		ConstantInt::get(i64, MV_ENTRY_OFFSET + (pad_nop ? 4 : 0)));
	/* A plain function (MV_FN_PLAIN): one record of its own code, from
	 * its entry, guarded by nothing (inline.cpp analyses it). */
	bool plain = variants.empty();
	if (plain)
		variants.push_back(ConstantStruct::getAnon({ entry, ConstantPointerNull::get(ptr),
			ConstantInt::get(i32, 0), ConstantInt::get(Type::getInt16Ty(c), 0),
			ConstantInt::get(Type::getInt16Ty(c), 0), ConstantPointerNull::get(ptr),
			ConstantInt::get(i32, 0), ConstantInt::get(i32, MV_INLINE_UNKNOWN) }));
	Constant *table = record(m, ConstantArray::get(ArrayType::get(variants[0]->getType(),
		variants.size()), variants), MV_SECTION_VARIANTS, ".mv.variants", f.getComdat(), used);
	Constant *init = ConstantStruct::getAnon({ &f, cstring(m, mv_display_name(f.getName())), entry, table,
		ConstantInt::get(i32, variants.size()),
		ConstantInt::get(i32, MV_FN_ENTRY_AFTER_PAD | (pad_nop ? MV_FN_ENTRY_AFTER_PAD_NOP : 0) |
				 (plain ? MV_FN_PLAIN : 0)) });
	record(m, init, MV_SECTION_FN, ".mv.fn", f.getComdat(), used);
}

/* Registration early, so that user constructors may commit already;
 * unregistration late, after the module's own destructors.  With an
 * optional runtime, the references are weak and each call is made only
 * if the runtime is there.
 *
 * One constructor and one destructor per module, not one per unit: every
 * unit passes the same bounds, so a single call does.  Both functions,
 * and their .init_array/.fini_array entries, go into one COMDAT group, of
 * which the linker keeps the first copy in the module.  The group is
 * named as the GCC plugin names its own (gcc/descriptors.cc): after the
 * descriptor version, and whether the runtime is optional. */
void mv_emit_registration(Module &m, bool optional_runtime)
{
	LLVMContext &c = m.getContext();
	Type *i32 = Type::getInt32Ty(c);
	PointerType *ptr = PointerType::getUnqual(c);
	FunctionType *reg = FunctionType::get(i32, { i32, i32, ptr, ptr, ptr, ptr, ptr, ptr }, false);
	const char *names[] = { "__multiverse_register_module", "__multiverse_unregister_module" };
	static const char *const bounds[] = MV_MODULE_BOUNDS;
	std::string name = ("__multiverse_module_v" + Twine(MV_DESCRIPTOR_VERSION) +
			    (optional_runtime ? "_optional" : "")).str();
	Comdat *group = m.getOrInsertComdat(name);
	Function *key = nullptr;
	for (int k = 0; k < 2; k++) {
		/* with the attributes the command line gives every function
		 * (branch protection: .init_array calls it indirectly).  The
		 * constructor is the group's key, named as the group: an
		 * .init_array or .fini_array entry joins the group its key
		 * symbol names. */
		Function *f = Function::createWithDefaultAttr(
			FunctionType::get(Type::getVoidTy(c), false),
			k ? GlobalValue::InternalLinkage : GlobalValue::LinkOnceODRLinkage,
			m.getDataLayout().getProgramAddressSpace(),
			k ? MV_UNREGISTER_FN : name, &m);
		f->setComdat(group);
		if (!k) {
			f->setVisibility(GlobalValue::HiddenVisibility);
			key = f;
		}
		IRBuilder<> b(BasicBlock::Create(c, "", f));
		FunctionCallee callee = m.getOrInsertFunction(names[k], reg);
		if (optional_runtime) {
			auto *decl = cast<Function>(callee.getCallee());
			decl->setLinkage(GlobalValue::ExternalWeakLinkage);
			BasicBlock *call = BasicBlock::Create(c, "", f), *done = BasicBlock::Create(c, "", f);
			b.CreateCondBr(b.CreateIsNotNull(decl), call, done);
			b.SetInsertPoint(done);
			b.CreateRetVoid();
			b.SetInsertPoint(call);
		}
		SmallVector<Value *, 2 + MV_MODULE_BOUND_COUNT> args = {
			ConstantInt::get(i32, MV_DESCRIPTOR_VERSION),
			ConstantInt::get(i32, mv_arch_of(Triple(m.getTargetTriple()))->machine) };
		for (const char *b : bounds)
			args.push_back(bound(m, b));
		b.CreateCall(callee, args);
		b.CreateRetVoid();
		if (k)
			appendToGlobalDtors(m, f, 101, key);
		else
			appendToGlobalCtors(m, f, 101, key);
	}
	/* The constructor names every section's bounds: each must exist in
	 * the module, if empty (the sites' is written by sites.cpp). */
	m.appendModuleInlineAsm(".pushsection " MV_SECTION_VAR ",\"aw\"\n.balign 8\n.popsection\n"
				".pushsection " MV_SECTION_FN ",\"aw\"\n.balign 8\n.popsection");
}
