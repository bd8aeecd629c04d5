/* SPDX-License-Identifier: MIT */
/*
 * The attribute, in Clang: __attribute__((multiverse)) on a function
 * definition or declaration, or on a global integer, enum or bool
 * variable or struct or union member, with the optional arguments
 * "tracked" or "values", N, ..., or on a global function pointer
 * (the same forms as the GCC front end, gcc/attribute.cc).  Each valid
 * use is recorded in mv_declared under the declaration's IR name, where
 * the IR passes of the same compilation find it; a member's in
 * mv_field_decls (members.cpp).  (Clang's annotations
 * would not do: it emits them for definitions only, and a unit must know
 * the switches it reads that another unit defines.)
 */
#include "multiverse.h"
#include "descriptor.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

using namespace clang;

/* The name a C declaration has in LLVM IR: its asm label, marked not to
 * be mangled further, or its C name.  (C++'s: cxx.cpp.) */
std::string mv_c_ir_name(const NamedDecl *d)
{
	/* Clang marks a label "\1" only where C names get a prefix */
	if (const auto *label = d->getAttr<AsmLabelAttr>())
		return (d->getASTContext().getTargetInfo().getUserLabelPrefix()[0] ? "\1" : "") +
		       label->getLabel().str();
	return d->getName().str();
}

namespace {

/* The declaration as a diagnostic names it: in C++ qualified (W::s). */
std::string name_of(const Decl *d)
{
	const auto *n = cast<NamedDecl>(d);
	return d->getASTContext().getLangOpts().CPlusPlus ? n->getQualifiedNameAsString() :
	       n->getNameAsString();
}

/* An error at the declaration's name, as GCC gives it, with what is at
 * fault (the attribute or one of its arguments) underlined, and the edit
 * that fixes it where that is mechanical. */
void error(Sema &S, const Decl *D, SourceRange what, const std::string &text,
	   const FixItHint &fix = FixItHint())
{
	unsigned id = S.getDiagnostics().getCustomDiagID(DiagnosticsEngine::Error, "%0");
	S.Diag(D->getLocation(), id) << text << what << fix;
}

/* The paper's spelling multiverse(("values", 1, 2)) is one comma
 * expression: its operands are the arguments. */
void flatten(Expr *e, SmallVectorImpl<Expr *> &out)
{
	e = e->IgnoreParenImpCasts();
	if (auto *b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Comma) {
		flatten(b->getLHS(), out);
		flatten(b->getRHS(), out);
		return;
	}
	out.push_back(e);
}

/* Whether v is a value of the integer or enum type t. */
bool fits(ASTContext &ctx, QualType t, const llvm::APSInt &v)
{
	if (const auto *et = t->getAs<EnumType>())
		t = et->getDecl()->getIntegerType();
	unsigned bits = ctx.getIntWidth(t);
	bool is_signed = t->isSignedIntegerType();
	if (v.isSigned() && v.isNegative())
		return is_signed && v.getSignificantBits() <= bits;
	return v.getActiveBits() <= bits - (is_signed ? 1 : 0);
}

/* What a switch of type t holds: _Atomic(T) holds a T, which a variant
 * reads once, as a constant, like any other switch. */
QualType value_type(QualType t)
{
	if (const auto *a = t->getAs<AtomicType>())
		return a->getValueType();
	return t;
}

bool switch_type(QualType t)
{
	t = value_type(t).getCanonicalType();
	return t->isIntegralOrEnumerationType() && !t->isBitIntType() &&
	       !t->isSpecificBuiltinType(BuiltinType::Int128) &&
	       !t->isSpecificBuiltinType(BuiltinType::UInt128);
}

} // namespace

/* A declaration's record under one of its IR names; an ("inline", N)
 * of an earlier declaration of the same function or switch stays. */
void mv_record_decl(const NamedDecl *d, const std::string &name, mv_decl decl)
{
	if (decl.function)
		mv_function_decls.insert(d);
	else if (decl.flags & MV_DECL_FNPTR)
		mv_fnptr_switch_decls.insert(d);
	else
		mv_int_switch_decls.insert(d);
	auto old = mv_declared.find(name);
	if (old != mv_declared.end() && (old->second.flags & MV_DECL_INLINE) &&
	    !(decl.flags & MV_DECL_INLINE)) {
		decl.flags |= MV_DECL_INLINE;
		decl.inline_size = old->second.inline_size;
	}
	if (old != mv_declared.end() && (decl.flags & MV_DECL_INLINE) &&
	    !(old->second.flags & MV_DECL_INLINE)) {
		old->second.flags |= MV_DECL_INLINE;
		old->second.inline_size = decl.inline_size;
		return;
	}
	mv_declared[name] = decl;
}

namespace {

/* In C, recorded now; C++ records it once the unit is complete (cxx.cpp). */
void declare(Sema &S, const NamedDecl *d, const mv_decl &decl)
{
	if (S.getLangOpts().CPlusPlus)
		return mv_cxx_defer(d, decl);
	mv_record_decl(d, mv_c_ir_name(d), decl);
}

/* ("inline", N): N (0 to MV_INLINE_MAX), -1 if the arguments are not
 * that, -2 after an error. */
int inline_arg(Sema &S, const Decl *D, const ParsedAttr &A)
{
	SmallVector<Expr *, 4> given;
	for (unsigned i = 0; i < A.getNumArgs(); i++)
		if (A.isArgExpr(i))
			flatten(A.getArgAsExpr(i), given);
	auto *str = given.empty() ? nullptr : dyn_cast<StringLiteral>(given[0]);
	if (!str || str->getString() != "inline")
		return -1;
	Expr::EvalResult r;
	if (given.size() != 2 || !given[1]->EvaluateAsInt(r, S.Context) ||
	    r.Val.getInt().isNegative() || r.Val.getInt().getActiveBits() > 32 ||
	    r.Val.getInt().getZExtValue() > MV_INLINE_MAX) {
		error(S, D, A.getRange(), "multiverse: '" + name_of(D) +
		      "': (\"inline\", N) takes one integer constant N from 0 to " +
		      std::to_string(MV_INLINE_MAX) + ": the bytes of each call site, call "
		      "included (0: calls are not padded)");
		return -2;
	}
	return (int)r.Val.getInt().getZExtValue();
}

struct MultiverseAttr : ParsedAttrInfo {
	MultiverseAttr()
	{
		OptArgs = 15;
		static constexpr Spelling spellings[] = {
			{ ParsedAttr::AS_GNU, "multiverse" },
		};
		Spellings = spellings;
	}

	bool diagAppertainsToDecl(Sema &S, const ParsedAttr &A, const Decl *D) const override
	{
		if (isa<FunctionDecl>(D))
			return true;
		if (isa<ParmVarDecl>(D)) {
			error(S, D, A.getRange(), "multiverse: '" + name_of(D) +
			      "' is a function parameter; the attribute applies to functions "
			      "and global variables only");
			return false;
		}
		if (const auto *F = dyn_cast<FieldDecl>(D)) {
			/* a switch in every object of the type (members.cpp) */
			if (F->isBitField()) {
				error(S, D, A.getRange(), "multiverse: '" + name_of(F) +
				      "' is a bit-field; a switch member must be a whole integer, "
				      "enum or bool member, with an address of its own");
				return false;
			}
			return true;
		}
		if (const auto *V = dyn_cast<VarDecl>(D)) {
			if (!V->hasGlobalStorage() || V->isStaticLocal()) {
				error(S, D, A.getRange(), "multiverse: '" + name_of(V) +
				      "' is a local variable; only global variables can be switches");
				return false;
			}
			return true;
		}
		const auto *N = dyn_cast<NamedDecl>(D);
		error(S, D, A.getRange(), "multiverse: " + (N ? "'" + name_of(N) + "': " :
		      std::string()) + "the attribute applies to functions and global "
		      "variables only");
		return false;
	}

	AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &A) const override
	{
		/* a variable or a member: what the checks need of either */
		const auto *V = dyn_cast<ValueDecl>(D);
		if (V && !isa<VarDecl>(V) && !isa<FieldDecl>(V))
			V = nullptr;
		const auto *VD = dyn_cast<VarDecl>(D);
		bool fnptr = V && V->getType()->isFunctionPointerType();
		/* multiverse("tracked") becomes multiverse */
		FixItHint no_args = A.getRange().getBegin().isMacroID() || A.getRange().getEnd().isMacroID() ?
			FixItHint() : FixItHint::CreateReplacement(A.getRange(), A.getAttrName()->getName());
		/* ("inline", N) on a function or a function-pointer switch */
		int inline_size = inline_arg(S, D, A);
		if (inline_size == -2)
			return AttributeNotApplied;
		if (inline_size >= 0) {
			mv_decl decl{ !V, (fnptr ? MV_DECL_FNPTR : 0u) | MV_DECL_INLINE, {},
				      (unsigned)inline_size };
			if (const auto *F = dyn_cast<FieldDecl>(D))
				mv_field_decls[F] = decl;
			else
				declare(S, cast<NamedDecl>(D), decl);
			return AttributeApplied;
		}
		if (fnptr && A.getNumArgs()) {
			error(S, D, A.getRange(), "multiverse: '" + name_of(V) + "' is a "
			      "function-pointer switch, which takes no arguments in the attribute "
			      "but (\"inline\", N)", no_args);
			return AttributeNotApplied;
		}
		if (V && !fnptr && !switch_type(V->getType())) {
			error(S, D, A.getRange(), "multiverse: switch '" + name_of(V) +
			      "' has type '" + V->getType().getAsString(S.getPrintingPolicy()) + "'; a switch must "
			      "be an integer, enum or bool variable or member, or a function "
			      "pointer");
			return AttributeNotApplied;
		}
		if (VD && VD->getTLSKind() != VarDecl::TLS_None) {
			error(S, D, A.getRange(), "multiverse: '" + name_of(V) + "' is "
			      "thread-local; a switch must be a global variable with one "
			      "value for the whole program", mv_fixit_remove_thread_local(VD));
			return AttributeNotApplied;
		}
		if (V && V->getType().isConstQualified()) {
			error(S, D, A.getRange(), "multiverse: switch '" + name_of(V) +
			      "' is const; a switch must be writable",
			      mv_fixit_remove_const(cast<DeclaratorDecl>(V)));
			return AttributeNotApplied;
		}
		/* What the IR passes need: flags (MV_DECL_*) and the explicit
		 * values, as 64-bit values (sign- or zero-extended). */
		unsigned flags = 0;
		SmallVector<int64_t, 8> values;
		if (A.getNumArgs() && !V) {
			error(S, D, A.getRange(), "multiverse: a function takes no arguments in "
			      "the attribute but (\"inline\", N)", no_args);
			return AttributeNotApplied;
		}
		bool in_values = false;
		SmallVector<Expr *, 8> given;
		for (unsigned i = 0; i < A.getNumArgs(); i++) {
			Expr *e = A.isArgExpr(i) ? A.getArgAsExpr(i) : nullptr;
			if (!e) {
				error(S, D, A.getRange(), "multiverse: arguments must be \"values\", "
				      "\"tracked\" or integer constants");
				return AttributeNotApplied;
			}
			flatten(e, given);
		}
		for (unsigned i = 0; i < given.size(); i++) {
			Expr *e = given[i];
			if (auto *str = dyn_cast<StringLiteral>(e)) {
				if (str->getString() == "values" && i == 0) {
					in_values = true;
					flags |= MV_DECL_VALUES;
				} else if (str->getString() == "tracked" && i == 0) {
					if (given.size() > 1) {
						error(S, D, given[1]->getSourceRange(), "multiverse: \"tracked\" "
						      "takes no further arguments");
						return AttributeNotApplied;
					}
					flags |= MV_DECL_TRACKED;
				} else {
					/* "trackd" alone, "value" with values */
					StringRef meant = given.size() == 1 ? "tracked" : "values";
					if (i || !str->isOrdinary() ||
					    str->getString().edit_distance(meant) > 2) {
						error(S, D, e->getSourceRange(), "multiverse: unknown argument \"" +
						      str->getString().str() + "\"; the arguments are \"tracked\" "
						      "alone, or \"values\" followed by integer constants");
						return AttributeNotApplied;
					}
					/* no edit where a macro spells it */
					SourceRange at = e->getSourceRange();
					error(S, D, at, "multiverse: unknown argument \"" +
					      str->getString().str() + "\"; did you mean \"" + meant.str() + "\"?",
					      at.getBegin().isMacroID() || at.getEnd().isMacroID() ? FixItHint() :
					      FixItHint::CreateReplacement(at, "\"" + meant.str() + "\""));
					return AttributeNotApplied;
				}
				continue;
			}
			Expr::EvalResult r;
			if (!in_values || !e->EvaluateAsInt(r, S.Context)) {
				error(S, D, e->getSourceRange(), "multiverse: a value of \"values\" must "
				      "be an integer constant");
				return AttributeNotApplied;
			}
			llvm::APSInt v = r.Val.getInt();
			QualType t = value_type(V->getType());
			if (!fits(S.Context, t, v)) {
				error(S, D, e->getSourceRange(), "multiverse: '" + name_of(V) +
				      "': value " + toString(v, 10) + " does not fit the type '" +
				      t.getAsString(S.getPrintingPolicy()) + "' of the switch");
				return AttributeNotApplied;
			}
			values.push_back(v.isSigned() ? v.getSExtValue() : (int64_t)v.getZExtValue());
		}
		if ((flags & MV_DECL_VALUES) && values.empty()) {
			error(S, D, A.getRange(), "multiverse: \"values\" needs at least one value");
			return AttributeNotApplied;
		}
		if (V && value_type(V->getType())->isSignedIntegerOrEnumerationType())
			flags |= MV_DECL_SIGNED;
		if (fnptr)
			flags |= MV_DECL_FNPTR;
		/* An enum's domain is its enumerators (as in gcc/domain.cc). */
		const EnumType *et = V ? value_type(V->getType())->getAs<EnumType>() : nullptr;
		if (et && !(flags & MV_DECL_VALUES)) {
			flags |= MV_DECL_VALUES;
			for (const EnumConstantDecl *c : et->getDecl()->enumerators()) {
				llvm::APSInt v = c->getInitVal();
				values.push_back(v.isSigned() ? v.getSExtValue() : (int64_t)v.getZExtValue());
			}
		}
		if (V && value_type(V->getType())->isBooleanType() && !(flags & MV_DECL_VALUES)) {
			flags |= MV_DECL_VALUES;
			values.push_back(0);
			values.push_back(1);
		}
		mv_decl decl{ !V, flags, std::vector<int64_t>(values.begin(), values.end()) };
		if (const auto *F = dyn_cast<FieldDecl>(D)) {
			mv_field_decls[F] = decl;
			return AttributeApplied;
		}
		declare(S, cast<NamedDecl>(D), decl);
		return AttributeApplied;
	}
};

ParsedAttrInfoRegistry::Add<MultiverseAttr> registered("multiverse",
	"Multiverse: a switch, or a function to specialize on switches");

} // namespace

std::map<std::string, mv_decl> mv_declared;
std::set<const Decl *> mv_function_decls, mv_int_switch_decls, mv_fnptr_switch_decls;

unsigned mv_default_inline_size;

unsigned mv_inline_size(const std::string &name)
{
	auto d = mv_declared.find(name);
	if (d != mv_declared.end() && (d->second.flags & MV_DECL_INLINE))
		return d->second.inline_size;
	return mv_default_inline_size;
}
