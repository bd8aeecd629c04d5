/* SPDX-License-Identifier: MIT */
/*
 * Struct and union members as switches, in Clang (gcc/members.cc is the
 * GCC front end's, with the design in docs/design.md).  The attribute on
 * a member makes it a switch in every object of the type with static
 * storage duration.  The IR has no members, only offsets, so once Sema
 * has seen the unit this lists, for each such object, the member switches
 * it holds: offset, width, attribute and C name (cfgs[1].in.mode).
 * specialize.cpp then knows a load from the object at that offset, of
 * that width, as a read of the switch.
 *
 * It also refuses a union with switches in more than one member (two
 * switches must not share storage) and a packed function-pointer member
 * (a stub loads it with an aligned load on AArch64).
 */
#include "multiverse.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;

std::map<const FieldDecl *, mv_decl> mv_field_decls;
std::map<std::string, std::vector<mv_member>> mv_objects;

const mv_decl *mv_field_switch(const FieldDecl *f)
{
	auto d = mv_field_decls.find(f);
	if (d != mv_field_decls.end())
		return &d->second;
	const auto *rd = dyn_cast<CXXRecordDecl>(f->getParent());
	const CXXRecordDecl *pattern = rd ? rd->getTemplateInstantiationPattern() : nullptr;
	if (!pattern || pattern == rd)
		return nullptr;
	for (const FieldDecl *p : pattern->fields())
		if (p->getFieldIndex() == f->getFieldIndex())
			return mv_field_switch(p);
	return nullptr;
}

namespace {

bool has_switches(QualType t, std::map<const RecordDecl *, bool> &memo)
{
	while (const auto *a = t->getAsArrayTypeUnsafe())
		t = a->getElementType();
	const auto *rt = t->getAs<RecordType>();
	const RecordDecl *rd = rt ? rt->getDecl()->getDefinition() : nullptr;
	if (!rd)
		return false;
	auto it = memo.find(rd);
	if (it != memo.end())
		return it->second;
	bool has = false;
	for (const FieldDecl *f : rd->fields())
		if (mv_field_switch(f) || has_switches(f->getType(), memo))
			has = true;
	return memo[rd] = has;
}

struct Visitor : RecursiveASTVisitor<Visitor> {
	ASTContext &ctx;
	std::map<const RecordDecl *, bool> memo;
	/* every static object of a function, by function and name */
	typedef std::pair<const Decl *, std::string> Key;
	std::map<Key, unsigned> statics;

	static Key key(const VarDecl *v)
	{
		return { cast<Decl>(v->getDeclContext())->getCanonicalDecl(), v->getName().str() };
	}
	std::vector<const VarDecl *> objects;       /* those with switches */

	explicit Visitor(ASTContext &c) : ctx(c) {}

	/* each instance of a template, not the template */
	bool shouldVisitTemplateInstantiations() const { return true; }

	void members(QualType t, uint64_t offset, const std::string &name,
		     std::vector<mv_member> &out)
	{
		if (const auto *a = ctx.getAsConstantArrayType(t)) {
			QualType elt = a->getElementType();
			if (!has_switches(elt, memo))
				return;
			uint64_t size = ctx.getTypeSizeInChars(elt).getQuantity();
			for (uint64_t i = 0; i < a->getSize().getZExtValue(); i++)
				members(elt, offset + i * size, name + "[" + std::to_string(i) + "]", out);
			return;
		}
		const auto *rt = t->getAs<RecordType>();
		const RecordDecl *rd = rt ? rt->getDecl()->getDefinition() : nullptr;
		if (!rd || rd->isInvalidDecl())
			return;
		const ASTRecordLayout &layout = ctx.getASTRecordLayout(rd);
		for (const FieldDecl *f : rd->fields()) {
			uint64_t at = offset + layout.getFieldOffset(f->getFieldIndex()) / 8;
			std::string n = f->getName().empty() ? name : name + "." + f->getName().str();
			if (const mv_decl *d = mv_field_switch(f))
				out.push_back({ at, (unsigned)ctx.getTypeSizeInChars(f->getType()).getQuantity(),
						*d, n });
			else
				members(f->getType(), at, n, out);
		}
	}

	bool VisitVarDecl(VarDecl *v)
	{
		if (!v->hasGlobalStorage() || v->getTLSKind() != VarDecl::TLS_None ||
		    isa<ParmVarDecl>(v) || v->isTemplated() || v->isInvalidDecl())
			return true;
		if (v->isStaticLocal())
			statics[key(v)]++;
		if (has_switches(v->getType(), memo))
			objects.push_back(v);
		return true;
	}

	/* Once the unit is seen: the member switches of each object. */
	void record()
	{
		std::set<Key> told;
		for (const VarDecl *v : objects) {
			/* Clang names a function's static object function.object
			 * (C) or mangles it (C++) */
			std::string ir = mv_ir_name(v);
			if (v->isStaticLocal() && !ctx.getLangOpts().CPlusPlus)
				if (const auto *fn = dyn_cast<FunctionDecl>(v->getDeclContext()))
					ir = mv_ir_name(fn) + "." + v->getName().str();
			if (v->isStaticLocal() && statics[key(v)] > 1) {
				/* LLVM names the second fn.object.1, or the first if
				 * CodeGen skips the first one's block, and C++ numbers
				 * them as CodeGen meets them: not knowable */
				if (!told.insert(key(v)).second)
					continue;
				DiagnosticsEngine &d = ctx.getDiagnostics();
				d.Report(v->getLocation(), d.getCustomDiagID(DiagnosticsEngine::Warning,
					"multiverse: '%0' is not the only static object called '%0' in "
					"this function, so the Clang plugin cannot tell them apart and "
					"specializes the member switches of neither; rename one"))
					<< v->getName();
				continue;
			}
			std::vector<mv_member> list;
			members(v->getType(), 0, mv_source_name(v), list);
			if (!list.empty())
				mv_objects[ir] = list;
		}
	}
};

struct Consumer : ASTConsumer {
	void HandleTagDeclDefinition(TagDecl *tag) override
	{
		auto *rd = dyn_cast<RecordDecl>(tag);
		if (!rd || mv_field_decls.empty())
			return;
		ASTContext &ctx = rd->getASTContext();
		DiagnosticsEngine &d = ctx.getDiagnostics();
		for (const FieldDecl *f : rd->fields())
			if (mv_field_switch(f) && f->getType()->isFunctionPointerType() &&
			    ctx.getDeclAlign(f) < ctx.getTypeAlignInChars(f->getType()))
				d.Report(f->getLocation(), d.getCustomDiagID(DiagnosticsEngine::Error,
					"multiverse: '%0' is a packed function-pointer member; a "
					"function-pointer switch must be aligned to its size"))
					<< f->getName();
		if (!rd->isUnion())
			return;
		std::map<const RecordDecl *, bool> memo;
		const FieldDecl *first = nullptr;
		for (const FieldDecl *f : rd->fields()) {
			if (!mv_field_switch(f) && !has_switches(f->getType(), memo))
				continue;
			if (!first) {
				first = f;
				continue;
			}
			d.Report(f->getLocation(), d.getCustomDiagID(DiagnosticsEngine::Error,
				"multiverse: '%0' and '%1' share their storage in '%2', and both "
				"are or hold switches; a union may have switches in one of its "
				"members only")) << first->getName() << f->getName()
				<< ctx.getRecordType(rd).getAsString();
			d.Report(first->getLocation(), d.getCustomDiagID(DiagnosticsEngine::Note,
				"'%0' declared here")) << first->getName();
		}
	}

	void HandleTranslationUnit(ASTContext &ctx) override
	{
		if (mv_field_decls.empty())
			return;
		Visitor v(ctx);
		v.TraverseDecl(ctx.getTranslationUnitDecl());
		v.record();
	}
};

} // namespace

std::unique_ptr<ASTConsumer> mv_make_member_table(void)
{
	return std::make_unique<Consumer>();
}
