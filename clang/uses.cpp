/*
 * Warnings about how multiversed functions use switches, once Sema has
 * seen the whole unit: a function that writes a switch, or takes its
 * address, is not specialized for that switch (specialize.cpp sees the
 * same in the IR and leaves the switch a read at run time).  The same
 * warnings as the GCC front end's (gcc/specialize.cc), in Clang's style.
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
#include "clang/AST/RecursiveASTVisitor.h"

#include <set>

using namespace clang;

namespace {

/* The declarations with the attribute, as canonical declarations: Sema
 * links redeclarations only after it has handled a declaration's
 * attributes, so this waits until the whole unit is parsed. */
std::set<const Decl *> functions, int_switches;

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

struct Visitor : RecursiveASTVisitor<Visitor> {
	DiagnosticsEngine &diags;
	const FunctionDecl *fn = nullptr;
	std::set<std::pair<const Decl *, const Decl *>> warned;

	explicit Visitor(DiagnosticsEngine &d) : diags(d) {}

	void warn(SourceLocation at, const VarDecl *v, const char *what)
	{
		/* outside multiversed functions (initializers of globals too) */
		if (!fn || !warned.insert({ fn->getCanonicalDecl(), v->getCanonicalDecl() }).second)
			return;
		unsigned id = diags.getCustomDiagID(DiagnosticsEngine::Warning,
			"multiverse: '%0' %1 switch '%2'; the switch is not specialized "
			"in this function");
		diags.Report(at, id) << fn->getName() << what << v->getName();
	}

	bool TraverseFunctionDecl(FunctionDecl *f)
	{
		if (!f->doesThisDeclarationHaveABody() ||
		    !functions.count(f->getCanonicalDecl()))
			return true;
		fn = f;
		TraverseStmt(f->getBody());
		fn = nullptr;
		return true;
	}

	bool VisitBinaryOperator(BinaryOperator *b)
	{
		const VarDecl *v;
		if (b->isAssignmentOp() && is_switch(b->getLHS(), &v))
			warn(b->getOperatorLoc(), v, "writes");
		return true;
	}

	bool VisitUnaryOperator(UnaryOperator *u)
	{
		const VarDecl *v;
		if (!is_switch(u->getSubExpr(), &v))
			return true;
		if (u->isIncrementDecrementOp())
			warn(u->getOperatorLoc(), v, "writes");
		else if (u->getOpcode() == UO_AddrOf)
			warn(u->getOperatorLoc(), v, "takes the address of");
		return true;
	}

	bool VisitGCCAsmStmt(GCCAsmStmt *a)
	{
		const VarDecl *v;
		for (unsigned i = 0; i < a->getNumOutputs(); i++)
			if (is_switch(a->getOutputExpr(i), &v))
				warn(a->getOutputExpr(i)->getExprLoc(), v, "writes");
		return true;
	}
};

struct Consumer : ASTConsumer {
	void HandleTranslationUnit(ASTContext &ctx) override
	{
		if (mv_function_decls.empty() || mv_int_switch_decls.empty())
			return;
		functions = canonical(mv_function_decls);
		int_switches = canonical(mv_int_switch_decls);
		Visitor v(ctx.getDiagnostics());
		v.TraverseDecl(ctx.getTranslationUnitDecl());
	}
};

} // namespace

std::unique_ptr<ASTConsumer> mv_make_use_checker(void)
{
	return std::make_unique<Consumer>();
}
