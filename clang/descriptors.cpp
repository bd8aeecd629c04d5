/* SPDX-License-Identifier: MIT */
/*
 * The descriptors (common/descriptor.h) as IR data, in the sections the
 * GCC front end writes them to (gcc/descriptors.cc), and the constructor
 * and destructor that register the module with the runtime through its
 * hidden __start_/__stop_ section bounds.  Call sites are not here: only
 * the AsmPrinter knows where they are (sites.cpp).
 *
 * An address field holds a distance (common/descriptor.h) where the
 * static link resolves it (mv_static_link_resolves()): in IR, the target's
 * address less the field's, an element of the record itself.  The
 * variant tables and the function records become distances where
 * inline.cpp writes them.
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

/* A record, its initializer left to the caller: the distances in it
 * refer to the record itself. */
GlobalVariable *record(Module &m, Type *type, StringRef section, const Twine &name,
		       Comdat *group, std::vector<GlobalValue *> &used)
{
	/* writable, as the sections are (gcc/descriptors.cc): a read-only
	 * record would make LLVM give the section other flags than the
	 * empty one emitted below */
	auto *gv = new GlobalVariable(m, type, false, GlobalValue::PrivateLinkage, nullptr, name);
	gv->setSection(section);
	gv->setAlignment(Align(8));
	/* kept or dropped with what it describes (sites.cpp) */
	gv->setComdat(group);
	used.push_back(gv);
	return gv;
}

/* target less the address of the field of rec that indices lead to */
Constant *distance(Constant *target, GlobalVariable *rec, ArrayRef<unsigned> indices)
{
	LLVMContext &c = rec->getContext();
	Type *i32 = Type::getInt32Ty(c), *i64 = Type::getInt64Ty(c);
	SmallVector<Constant *, 3> path = { ConstantInt::get(i32, 0) };
	for (unsigned i : indices)
		path.push_back(ConstantInt::get(i32, i));
	Constant *field = ConstantExpr::getInBoundsGetElementPtr(rec->getValueType(), rec, path);
	return ConstantExpr::getSub(ConstantExpr::getPtrToInt(target, i64),
				    ConstantExpr::getPtrToInt(field, i64));
}

/* Whether the switch at addr is stored as a distance: its object's symbol
 * decides (a member switch lies at an offset from it). */
bool switch_relative(Constant *addr, const DataLayout &dl)
{
	uint64_t offset;
	GlobalVariable *object = mv_object_of(addr, dl, &offset);
	return object && mv_static_link_resolves(*object);
}

/* A variant record as inline.cpp reads it, which writes it again: its
 * body, guards and their number, and its flags (MV_VARIANT_VARS_RELATIVE);
 * not analysed for inlining yet, and addresses absolute. */
Constant *variant(LLVMContext &c, Constant *body, Constant *guards, unsigned n_guards,
		  unsigned flags)
{
	Type *i16 = Type::getInt16Ty(c), *i32 = Type::getInt32Ty(c);
	return ConstantStruct::getAnon({ body, guards, ConstantInt::get(i32, n_guards),
		ConstantInt::get(i16, 0), ConstantInt::get(i16, 0),
		ConstantPointerNull::get(PointerType::getUnqual(c)), ConstantInt::get(i32, 0),
		ConstantInt::get(i16, MV_INLINE_UNKNOWN), ConstantInt::get(i16, flags) });
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
	PointerType *ptr = PointerType::getUnqual(c);
	bool relative = switch_relative(addr, m.getDataLayout());
	unsigned flags = (decl_flags & MV_DECL_SIGNED ? MV_VAR_SIGNED : 0) |
			 (decl_flags & MV_DECL_FNPTR ? MV_VAR_FNPTR : 0) |
			 (decl_flags & MV_DECL_TRACKED ? MV_VAR_TRACKED : 0) |
			 MV_VAR_NAME_RELATIVE | (relative ? MV_VAR_ADDR_RELATIVE : 0);
	uint64_t offset;
	GlobalVariable *object = mv_object_of(addr, m.getDataLayout(), &offset);
	auto *type = StructType::get(c, { relative ? i64 : ptr, i64, i32, i32, i64 });
	GlobalVariable *gv = record(m, type, MV_SECTION_VAR, ".mv.var",
				    object ? object->getComdat() : nullptr, used);
	gv->setInitializer(ConstantStruct::get(type, { relative ? distance(addr, gv, { 0 }) : addr,
		distance(cstring(m, name), gv, { 1 }), ConstantInt::get(i32, width),
		ConstantInt::get(i32, flags), ConstantInt::get(i64, 0) }));
}

void mv_emit_function(Module &m, Function &f, const std::vector<mv_record> &records,
		      std::vector<GlobalValue *> &used)
{
	LLVMContext &c = m.getContext();
	Type *i32 = Type::getInt32Ty(c), *i64 = Type::getInt64Ty(c);
	PointerType *ptr = PointerType::getUnqual(c);
	std::vector<Constant *> variants;
	for (const mv_record &r : records) {
		/* a distance in each of its guards or in none: the variant
		 * record has one flag for them (MV_VARIANT_VARS_RELATIVE) */
		bool relative = true;
		for (const mv_range &g : r.guards)
			relative &= switch_relative(g.sw, m.getDataLayout());
		auto *guard = StructType::get(c, { relative ? i64 : ptr, i64, i64 });
		auto *type = ArrayType::get(guard, r.guards.size());
		auto *gv = record(m, type, MV_SECTION_VARIANTS, ".mv.guards", f.getComdat(), used);
		std::vector<Constant *> guards;
		for (unsigned i = 0; i < r.guards.size(); i++) {
			Constant *sw = r.guards[i].sw;
			guards.push_back(ConstantStruct::get(guard, {
				relative ? distance(sw, gv, { i, 0 }) : sw,
				ConstantInt::get(i64, r.guards[i].low),
				ConstantInt::get(i64, r.guards[i].high) }));
		}
		gv->setInitializer(ConstantArray::get(type, guards));
		variants.push_back(variant(c, r.body, gv, guards.size(),
					   relative ? MV_VARIANT_VARS_RELATIVE : 0));
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
		variants.push_back(variant(c, entry, ConstantPointerNull::get(ptr), 0, 0));
	auto *array = ArrayType::get(variants[0]->getType(), variants.size());
	GlobalVariable *table = record(m, array, MV_SECTION_VARIANTS, ".mv.variants",
				       f.getComdat(), used);
	table->setInitializer(ConstantArray::get(array, variants));
	/* The record with absolute addresses, as inline.cpp reads it, which
	 * writes it with distances: in IR, AArch64 would name f by its local
	 * alias where -fno-semantic-interposition makes f dso_local, not by
	 * the address other modules know it by. */
	Constant *init = ConstantStruct::getAnon({ &f, cstring(m, mv_display_name(f.getName())),
		entry, table, ConstantInt::get(i32, variants.size()),
		ConstantInt::get(i32, MV_FN_ENTRY_AFTER_PAD | (pad_nop ? MV_FN_ENTRY_AFTER_PAD_NOP : 0) |
				 (plain ? MV_FN_PLAIN : 0)) });
	record(m, init->getType(), MV_SECTION_FN, ".mv.fn", f.getComdat(), used)->setInitializer(init);
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
