/* SPDX-License-Identifier: MIT */
/*
 * Warnings about how multiversed functions use switches, once Sema has
 * seen the whole unit: a function that writes a switch, or takes its
 * address, is not specialized for that switch (specialize.cpp sees the
 * same in the IR and leaves the switch a read at run time).  For member
 * switches, a write or an address counts where it overlaps a member the
 * function reads, and a read that names no object with static storage
 * duration, or uses a run-time array index, is told about too.  The same
 * warnings as the GCC front end's (gcc/specialize.cc), in Clang's style.
 * Function-pointer switches count where the function compares them
 * with NULL: they are probes (probes.cpp).
 *
 * Example:
 *   __attribute__((multiverse)) int counter;
 *   __attribute__((multiverse)) void bump(void) { counter++; }
 *   -> warning: multiverse: 'bump' writes switch 'counter'; the switch is
 *      not specialized in this function
 */
#include "multiverse.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <cstring>
#include <set>

using namespace clang;

namespace {

/* The declarations with the attribute, as canonical declarations: Sema
 * links redeclarations only after it has handled a declaration's
 * attributes, so this waits until the whole unit is parsed. */
std::set<const Decl *> functions, int_switches, fnptr_switches;

std::set<const Decl *> canonical(const std::set<const Decl *> &decls)
{
	std::set<const Decl *> out;
	for (const Decl *d : decls)
		out.insert(d->getCanonicalDecl());
	return out;
}

bool is_switch(const Expr *e, const VarDecl **out)
{
	const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
	const auto *v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
	if (!v || !int_switches.count(v->getCanonicalDecl()))
		return false;
	*out = v;
	return true;
}

/* What an lvalue names: bytes [from, to) of an object, found through
 * its members and array elements. */
struct Place {
	enum { OTHER, POINTER, LOCAL, THREAD, GLOBAL } root = OTHER;
	const VarDecl *object = nullptr;
	bool run_time_index = false;
	uint64_t from = 0, to = 0;
	std::string name;             /* cfgs[1].inner.level */
	const FieldDecl *member = nullptr;      /* the innermost one named */
};

/* An object's size, or "to the end" where the type has none here (an
 * extern array of unknown bound, an incomplete struct, a template's
 * dependent type): what overlaps it is then anything after its start. */
uint64_t size_of(QualType t, ASTContext &ctx)
{
	if (t->isIncompleteType() || t->isDependentType())
		return UINT64_MAX / 2;
	return ctx.getTypeSizeInChars(t).getQuantity();
}

Place place_of(const Expr *e, ASTContext &ctx)
{
	Place p;
	e = e->IgnoreParens();
	if (const auto *m = dyn_cast<MemberExpr>(e)) {
		const auto *f = dyn_cast<FieldDecl>(m->getMemberDecl());
		if (m->isArrow() || !f || f->getParent()->isDependentContext()) {
			p.root = m->isArrow() ? Place::POINTER : Place::OTHER;
			return p;
		}
		p = place_of(m->getBase(), ctx);
		if (!p.run_time_index) {
			p.from += ctx.getASTRecordLayout(f->getParent())
					  .getFieldOffset(f->getFieldIndex()) / 8;
			p.to = p.from + size_of(f->getType(), ctx);
		}
		if (!f->getName().empty())
			p.name += "." + f->getName().str();
		p.member = f;
		return p;
	}
	if (const auto *a = dyn_cast<ArraySubscriptExpr>(e)) {
		const auto *decay = dyn_cast<ImplicitCastExpr>(a->getBase()->IgnoreParens());
		if (!decay || decay->getCastKind() != CK_ArrayToPointerDecay) {
			p.root = Place::POINTER;
			return p;
		}
		p = place_of(decay->getSubExpr(), ctx);
		Expr::EvalResult index;
		if (p.run_time_index || !a->getIdx()->EvaluateAsInt(index, ctx)) {
			p.run_time_index = true;        /* all of the array, then */
			p.name += "[]";
			return p;
		}
		int64_t i = index.Val.getInt().getExtValue();
		p.from += i * size_of(a->getType(), ctx);
		p.to = p.from + size_of(a->getType(), ctx);
		p.name += "[" + std::to_string(i) + "]";
		return p;
	}
	if (const auto *r = dyn_cast<DeclRefExpr>(e)) {
		const auto *v = dyn_cast<VarDecl>(r->getDecl());
		if (!v)
			return p;
		p.root = !v->hasGlobalStorage() ? Place::LOCAL :
			 v->getTLSKind() != VarDecl::TLS_None ? Place::THREAD : Place::GLOBAL;
		p.object = v->getCanonicalDecl();
		p.to = size_of(v->getType(), ctx);
		p.name = v->getName().str();
		return p;
	}
	if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref)
		p.root = Place::POINTER;
	return p;
}

bool overlap(const Place &a, const Place &b)
{
	return a.object == b.object && a.from < b.to && b.from < a.to;
}

const char through_pointer[] = "through a pointer, which may or may not "
			       "point to an object with static storage duration";

struct Visitor : RecursiveASTVisitor<Visitor> {
	ASTContext &ctx;
	DiagnosticsEngine &diags;
	const FunctionDecl *fn = nullptr;
	std::set<std::pair<const Decl *, const Decl *>> warned;
	/* in the current function: member switches read, and the places
	 * written and whose address is taken */
	std::vector<Place> reads;
	std::vector<std::pair<Place, SourceLocation>> written, taken;
	std::set<const Expr *> indexed;         /* array decays that are not escapes */
	std::set<const Expr *> compared;        /* addresses only compared */
	std::set<const Expr *> atomic_loaded;   /* addresses only loaded from */
	/* member reads left dynamic; one through a pointer is told about
	 * unless the function also reads the member by the name of an object:
	 * then it chose the run-time read for other objects
	 * (p == &cfg ? cfg.on : p->on) */
	std::vector<std::tuple<const FieldDecl *, SourceLocation, const char *>> dynamic;
	std::set<const FieldDecl *> named;
	/* function-pointer switches compared with NULL (probes), with the
	 * declaration a note points at */
	std::vector<std::pair<Place, const NamedDecl *>> probes;

	explicit Visitor(ASTContext &c) : ctx(c), diags(c.getDiagnostics()) {}

	void warn(SourceLocation at, const VarDecl *v, const char *what)
	{
		/* outside multiversed functions (initializers of globals too) */
		if (!fn || !warned.insert({ fn->getCanonicalDecl(), v->getCanonicalDecl() }).second)
			return;
		warn(at, what, v->getName(), v);
	}

	/* declared: the switch, or the member switch, the note points at */
	void warn(SourceLocation at, const char *what, StringRef name, const NamedDecl *declared)
	{
		mv_report[mv_ir_name(fn)].dynamic.push_back({ name.str(),
			std::string("the function ") + (strcmp(what, "writes") ? "takes its address" : "writes it") });
		unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Warning,
			"multiverse: '%0' %1 switch '%2'; the switch is not specialized "
			"in this function");
		diags.Report(at, id) << mv_source_name(fn) << what << name;
		note_declared(declared);
	}

	void note_declared(const NamedDecl *declared)
	{
		if (!declared)
			return;
		unsigned id = isa<FieldDecl>(declared) ?
			diags.getCustomDiagID(DiagnosticsEngine::Note,
					      "switch member '%0' declared here") :
			diags.getCustomDiagID(DiagnosticsEngine::Note, "switch '%0' declared here");
		diags.Report(declared->getLocation(), id) << declared->getName();
	}

	/* C++: each instance of a multiversed template, and the members */
	bool shouldVisitTemplateInstantiations() const { return true; }
	bool TraverseCXXMethodDecl(CXXMethodDecl *f) { return TraverseFunctionDecl(f); }
	bool TraverseCXXConstructorDecl(CXXConstructorDecl *f) { return TraverseFunctionDecl(f); }
	bool TraverseCXXDestructorDecl(CXXDestructorDecl *f) { return TraverseFunctionDecl(f); }
	bool TraverseCXXConversionDecl(CXXConversionDecl *f) { return TraverseFunctionDecl(f); }

	/* A lambda's body is a function of its own. */
	bool TraverseLambdaExpr(LambdaExpr *l)
	{
		return fn ? true : RecursiveASTVisitor::TraverseLambdaExpr(l);
	}

	/* A static object's initializer is not run by the function (in C
	 * it is a constant, in C++ it runs once): an address it takes is
	 * none the function takes. */
	bool TraverseVarDecl(VarDecl *v)
	{
		if (fn && v->isStaticLocal())
			return true;
		return RecursiveASTVisitor::TraverseVarDecl(v);
	}

	bool TraverseFunctionDecl(FunctionDecl *f)
	{
		if (!f->doesThisDeclarationHaveABody() ||
		    !functions.count(f->getCanonicalDecl()))
			return true;
		fn = f;
		TraverseStmt(f->getBody());
		for (const Place &r : reads)
			warn_if_changed(r, r.member);
		std::set<std::string> probes_told;
		for (auto &[p, declared] : probes)
			if (probes_told.insert(p.name).second)
				warn_if_changed(p, declared);
		std::set<const FieldDecl *> told;
		for (auto &[f, at, why] : dynamic) {
			if ((why == through_pointer && named.count(f)) ||
			    !told.insert(f).second)
				continue;
			unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Warning,
				"multiverse: '%0' reads switch member '%1' of '%2' %3; only a "
				"read that names an object with static storage duration, with "
				"constant array indices, is specialized");
			diags.Report(at, id) << mv_source_name(fn) << f->getName()
				<< ctx.getRecordType(f->getParent()).getAsString() << why;
			note_declared(f);
			mv_report[mv_ir_name(fn)].dynamic.push_back({ f->getName().str(),
				std::string("read ") + why });
		}
		fn = nullptr;
		reads.clear(), written.clear(), taken.clear(), indexed.clear();
		compared.clear(), atomic_loaded.clear(), dynamic.clear(), named.clear();
		probes.clear();
		return true;
	}

	/* The first write of r, or else the first address of it taken. */
	void warn_if_changed(const Place &r, const NamedDecl *declared)
	{
		auto w = std::find_if(written.begin(), written.end(),
				      [&](auto &x) { return overlap(x.first, r); });
		auto t = std::find_if(taken.begin(), taken.end(),
				      [&](auto &x) { return overlap(x.first, r); });
		if (w != written.end())
			warn(w->second, "writes", r.name, declared);
		else if (t != taken.end())
			warn(t->second, "takes the address of", r.name, declared);
	}

	/* e, compared with NULL: a probe if it is a function-pointer switch
	 * of an object with static storage duration. */
	void compared_with_null(const Expr *e)
	{
		const NamedDecl *declared = nullptr;
		e = e->IgnoreParenImpCasts();
		if (const auto *r = dyn_cast<DeclRefExpr>(e)) {
			const auto *v = dyn_cast<VarDecl>(r->getDecl());
			if (v && fnptr_switches.count(v->getCanonicalDecl()))
				declared = v;
		} else if (const auto *m = dyn_cast<MemberExpr>(e)) {
			const auto *f = dyn_cast<FieldDecl>(m->getMemberDecl());
			const mv_decl *d = f ? mv_field_switch(f) : nullptr;
			if (d && (d->flags & MV_DECL_FNPTR))
				declared = f;
		}
		Place p = declared ? place_of(e, ctx) : Place();
		if (p.root == Place::GLOBAL && !p.run_time_index)
			probes.push_back({ p, declared });
	}

	/* e, written or with its address taken at at, into list */
	void note(std::vector<std::pair<Place, SourceLocation>> &list, const Expr *e,
		  SourceLocation at)
	{
		if (!fn)
			return;
		Place p = place_of(e, ctx);
		if (p.root == Place::GLOBAL)
			list.push_back({ p, at });
	}

	/* Visited before its operands: an address compared (is p the static
	 * object?) goes nowhere, so it cannot lead to a write. */
	bool VisitBinaryOperator(BinaryOperator *b)
	{
		const VarDecl *v;
		if (b->isComparisonOp()) {
			/* &x, and an array's decay (a cast itself) */
			for (const Expr *e : { b->getLHS(), b->getRHS() }) {
				compared.insert(e->IgnoreParenImpCasts());
				compared.insert(e->IgnoreParens());
			}
		}
		if (fn && b->isLogicalOp()) {           /* p && x, p || x */
			compared_with_null(b->getLHS());
			compared_with_null(b->getRHS());
		}
		if (fn && b->isEqualityOp()) {
			auto null = [&](const Expr *e) {
				return e->isNullPointerConstant(ctx, Expr::NPC_ValueDependentIsNotNull);
			};
			if (null(b->getRHS()))
				compared_with_null(b->getLHS());
			else if (null(b->getLHS()))
				compared_with_null(b->getRHS());
		}
		if (!b->isAssignmentOp())
			return true;
		if (is_switch(b->getLHS(), &v))
			warn(b->getOperatorLoc(), v, "writes");
		note(written, b->getLHS(), b->getOperatorLoc());
		return true;
	}

	/* Visited before its operands: an atomic load from &x reads x (a
	 * variant reads a switch once, as a constant, whatever the order);
	 * any other atomic operation on &x writes it. */
	bool VisitAtomicExpr(AtomicExpr *a)
	{
		const Expr *p = a->getPtr()->IgnoreParenImpCasts();
		const auto *u = dyn_cast<UnaryOperator>(p);
		const VarDecl *v;
		if (!u || u->getOpcode() != UO_AddrOf)
			return true;
		atomic_loaded.insert(u);
		switch (a->getOp()) {
		case AtomicExpr::AO__c11_atomic_load:
		case AtomicExpr::AO__atomic_load_n:
		case AtomicExpr::AO__atomic_load:
			return true;
		default:
			break;
		}
		if (is_switch(u->getSubExpr(), &v))
			warn(u->getOperatorLoc(), v, "writes");
		note(written, u->getSubExpr(), u->getOperatorLoc());
		return true;
	}

	bool VisitUnaryOperator(UnaryOperator *u)
	{
		const VarDecl *v;
		bool escapes = u->getOpcode() == UO_AddrOf && !compared.count(u) &&
			       !atomic_loaded.count(u);
		if (fn && u->getOpcode() == UO_LNot)   /* C: !p */
			compared_with_null(u->getSubExpr());
		if (u->isIncrementDecrementOp())
			note(written, u->getSubExpr(), u->getOperatorLoc());
		else if (escapes)
			note(taken, u->getSubExpr(), u->getOperatorLoc());
		if (!is_switch(u->getSubExpr(), &v))
			return true;
		if (u->isIncrementDecrementOp())
			warn(u->getOperatorLoc(), v, "writes");
		else if (escapes)
			warn(u->getOperatorLoc(), v, "takes the address of");
		return true;
	}

	/* C tests a pointer as a condition with no conversion to bool. */
	bool VisitIfStmt(IfStmt *s) { return condition(s->getCond()); }
	bool VisitWhileStmt(WhileStmt *s) { return condition(s->getCond()); }
	bool VisitDoStmt(DoStmt *s) { return condition(s->getCond()); }
	bool VisitForStmt(ForStmt *s) { return condition(s->getCond()); }
	bool VisitConditionalOperator(ConditionalOperator *c) { return condition(c->getCond()); }

	bool condition(const Expr *e)
	{
		if (fn && e)
			compared_with_null(e);
		return true;
	}

	bool VisitGCCAsmStmt(GCCAsmStmt *a)
	{
		const VarDecl *v;
		for (unsigned i = 0; i < a->getNumOutputs(); i++) {
			if (is_switch(a->getOutputExpr(i), &v))
				warn(a->getOutputExpr(i)->getExprLoc(), v, "writes");
			note(written, a->getOutputExpr(i), a->getOutputExpr(i)->getExprLoc());
		}
		return true;
	}

	/* An array indexed, or its first element's member named (a->m),
	 * is read in place; any other decay lets its address go. */
	bool VisitArraySubscriptExpr(ArraySubscriptExpr *a)
	{
		indexed.insert(a->getBase()->IgnoreParens());
		return true;
	}

	bool VisitMemberExpr(MemberExpr *m)
	{
		if (m->isArrow())
			indexed.insert(m->getBase()->IgnoreParens());
		return true;
	}

	bool VisitImplicitCastExpr(ImplicitCastExpr *c)
	{
		if (!fn)
			return true;
		if (c->getCastKind() == CK_ArrayToPointerDecay && !indexed.count(c) &&
		    !compared.count(c))
			note(taken, c->getSubExpr(), c->getExprLoc());
		if (c->getCastKind() == CK_PointerToBoolean)   /* C++: if (p), !p */
			compared_with_null(c->getSubExpr());
		if (c->getCastKind() == CK_LValueToRValue)
			if (const auto *m = dyn_cast<MemberExpr>(c->getSubExpr()->IgnoreParens()))
				read_member(m);
		return true;
	}

	void read_member(const MemberExpr *m)
	{
		const auto *f = dyn_cast<FieldDecl>(m->getMemberDecl());
		const mv_decl *d = f ? mv_field_switch(f) : nullptr;
		if (!d || (d->flags & MV_DECL_FNPTR))
			return;
		Place p = place_of(m, ctx);
		const char *why =
			p.root == Place::POINTER ? through_pointer :
			p.root == Place::THREAD ? "of a thread-local object" :
			p.root == Place::GLOBAL && p.run_time_index ?
				"at an array index known only at run time" : nullptr;
		if (why) {
			dynamic.push_back({ f, m->getExprLoc(), why });
			return;
		}
		if (p.root == Place::GLOBAL)
			named.insert(f);
		if (p.root == Place::GLOBAL &&
		    std::none_of(reads.begin(), reads.end(), [&](const Place &r) {
			    return r.object == p.object && r.from == p.from; }))
			reads.push_back(p);
	}
};

/* A multiversed function is never inlined; always_inline, on any of its
 * declarations, contradicts that.  Checked once the unit is parsed: an
 * attribute after multiverse in the same list comes after its handler. */
void check_always_inline(ASTContext &ctx)
{
	DiagnosticsEngine &d = ctx.getDiagnostics();
	std::set<const Decl *> told;
	for (const Decl *decl : mv_function_decls) {
		const auto *def = cast<FunctionDecl>(decl)->getDefinition();
		const auto *ai = def ? def->getAttr<AlwaysInlineAttr>() : nullptr;
		if (!ai || !told.insert(def->getCanonicalDecl()).second)
			continue;
		d.Report(def->getLocation(), d.getCustomDiagID(DiagnosticsEngine::Error,
			"multiverse: '%0' is 'always_inline'; a multiversed function is "
			"never inlined, so that commit can redirect every call to it"))
			<< mv_source_name(def) << mv_fixit_remove_attribute(ai, def);
	}
}

struct Consumer : ASTConsumer {
	void HandleTranslationUnit(ASTContext &ctx) override
	{
		check_always_inline(ctx);
		/* the report names a function where it is defined */
		for (const Decl *d : mv_function_decls) {
			const FunctionDecl *def = cast<FunctionDecl>(d)->getDefinition();
			PresumedLoc at = def ? ctx.getSourceManager().getPresumedLoc(def->getLocation())
					     : PresumedLoc();
			if (!at.isValid())
				continue;
			mv_report_fn &r = mv_report[mv_ir_name(def)];
			r.defined = true;
			r.file = at.getFilename(), r.line = at.getLine(), r.column = at.getColumn();
		}
		if (mv_function_decls.empty() || (mv_int_switch_decls.empty() &&
		    mv_fnptr_switch_decls.empty() && mv_field_decls.empty()))
			return;
		functions = canonical(mv_function_decls);
		int_switches = canonical(mv_int_switch_decls);
		fnptr_switches = canonical(mv_fnptr_switch_decls);
		Visitor v(ctx);
		v.TraverseDecl(ctx.getTranslationUnitDecl());
	}
};

} // namespace

std::unique_ptr<ASTConsumer> mv_make_use_checker(void)
{
	return std::make_unique<Consumer>();
}
