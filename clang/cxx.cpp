/* SPDX-License-Identifier: MIT */
/*
 * C++ in the Clang front end: which IR functions and variables the
 * attribute names, and what users see them called.
 *
 * In C, attribute.cpp records each declaration under its C name at once.
 * In C++ it checks the use at once but records it here, once Sema has
 * seen the whole unit (this consumer runs before code generation, and
 * before the other consumers): only then are the instances of templates
 * known, and every declaration complete enough to be mangled.
 *
 *   IR names: the Itanium mangling, as CodeGen gives it.  A constructor
 *   or destructor is two IR functions, the complete and the base object's
 *   (one may be an alias of the other): both are recorded.  A template's
 *   attribute applies to each of its instances in the unit, each with
 *   variants of its own.
 *
 *   Display names (descriptors, report, diagnostics): as the GCC front
 *   end spells them (gcc/multiverse.cc mv_name), so that the runtime and
 *   the inspector name a function the same whichever compiler built it:
 *   "Widget::cost(int) const", "util::pick(long int)", and for an
 *   instance of a template its arguments without parameters:
 *   "scaled<long int>", "Box<int>::get"; a lambda's call operator, or a
 *   member of a local or an unnamed class, in GCC's words for its scopes:
 *   "main()::<lambda(auto:1)>::operator()<int>", "<unnamed struct>::f(int)".
 *
 *   Functions whose IR names only CodeGen knows (nameable()) are found by
 *   an annotation instead (mv_claim_unnamed).
 */
#include "multiverse.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <cctype>

using namespace clang;

namespace {

struct Pending {
	const NamedDecl *decl;
	mv_decl attr;
};
std::vector<Pending> pending;
std::map<std::string, std::string> display;     /* by IR name */

std::unique_ptr<MangleContext> mangler;
const ASTContext *mangler_of;

MangleContext &mangle_context(const ASTContext &ctx)
{
	if (!mangler || mangler_of != &ctx) {
		mangler.reset(const_cast<ASTContext &>(ctx).createMangleContext());
		mangler_of = &ctx;
	}
	return *mangler;
}

std::string mangled(MangleContext &mc, GlobalDecl gd)
{
	std::string s;
	llvm::raw_string_ostream os(s);
	mc.mangleName(gd, os);
	return s;
}

/* The IR symbols of a function or variable; first the one that is always
 * a function (CodeGen makes the complete object's constructor an alias
 * of the base object's where they are the same), which the report and
 * the warnings name. */
std::vector<GlobalDecl> symbols(const NamedDecl *d)
{
	if (const auto *c = dyn_cast<CXXConstructorDecl>(d))
		return { GlobalDecl(c, Ctor_Base), GlobalDecl(c, Ctor_Complete) };
	if (const auto *x = dyn_cast<CXXDestructorDecl>(d))
		return { GlobalDecl(x, Dtor_Base), GlobalDecl(x, Dtor_Complete) };
	if (const auto *f = dyn_cast<FunctionDecl>(d))
		return { GlobalDecl(f) };
	return { GlobalDecl(cast<VarDecl>(d)) };
}

/* GCC's spelling of the builtin types Clang spells otherwise, and no
 * space before a declarator's * or &: "long unsigned int", "const char*". */
std::string gcc_spelling(const std::string &s)
{
	static const std::map<std::string, std::string> builtin = {
		{ "long", "long int" }, { "unsigned long", "long unsigned int" },
		{ "long long", "long long int" }, { "unsigned long long", "long long unsigned int" },
		{ "short", "short int" }, { "unsigned short", "short unsigned int" },
		{ "unsigned __int128", "__int128 unsigned" },
	};
	static const std::set<std::string> words = { "unsigned", "signed", "long", "short",
						     "int", "char", "double", "__int128" };
	std::string out;
	size_t i = 0;
	while (i < s.size()) {
		if (!isalpha((unsigned char)s[i]) && s[i] != '_') {
			if ((s[i] == '*' || s[i] == '&') && !out.empty() && out.back() == ' ')
				out.pop_back();
			out += s[i++];
			continue;
		}
		/* a run of builtin words: "unsigned long long" */
		std::string run;
		size_t j = i;
		for (;;) {
			size_t k = j;
			while (k < s.size() && (isalnum((unsigned char)s[k]) || s[k] == '_'))
				k++;
			std::string w = s.substr(j, k - j);
			if (!words.count(w)) {
				if (run.empty()) {
					out += w;
					j = k;
				}
				break;
			}
			run += (run.empty() ? "" : " ") + w;
			j = k;
			if (j + 1 < s.size() && s[j] == ' ' &&
			    (isalpha((unsigned char)s[j + 1]) || s[j + 1] == '_')) {
				size_t e = j + 1;
				while (e < s.size() && (isalnum((unsigned char)s[e]) || s[e] == '_'))
					e++;
				if (words.count(s.substr(j + 1, e - j - 1))) {
					j++;
					continue;
				}
			}
			break;
		}
		if (!run.empty()) {
			auto b = builtin.find(run);
			out += b == builtin.end() ? run : b->second;
		}
		i = j;
	}
	for (size_t at; (at = out.find("(anonymous namespace)")) != std::string::npos;)
		out.replace(at, sizeof "(anonymous namespace)" - 1, "{anonymous}");
	return out;
}

PrintingPolicy policy(const ASTContext &ctx)
{
	PrintingPolicy pp = ctx.getPrintingPolicy();
	pp.SuppressTagKeyword = true;
	pp.SuppressInlineNamespace = false;
	pp.SuppressScope = false;
	return pp;
}

/* A template argument as GCC prints it: types spelled its way, numbers
 * without suffixes, a declaration by its name, a pack's elements. */
void print_argument(const TemplateArgument &a, const PrintingPolicy &pp,
		    llvm::raw_ostream &os, bool &first)
{
	if (a.getKind() == TemplateArgument::Pack) {
		for (const TemplateArgument &e : a.pack_elements())
			print_argument(e, pp, os, first);
		return;
	}
	os << (first ? "" : ", ");
	first = false;
	switch (a.getKind()) {
	case TemplateArgument::Type:
		os << a.getAsType().getCanonicalType().getAsString(pp);
		break;
	case TemplateArgument::Integral: {
		const llvm::APSInt &v = a.getAsIntegral();
		QualType t = a.getIntegralType();
		if (t->isBooleanType()) {
			os << (v.getBoolValue() ? "true" : "false");
			break;
		}
		if (t->isAnyCharacterType() && v.getActiveBits() <= 7 && isprint((int)v.getZExtValue()) &&
		    v.getZExtValue() != '\'' && v.getZExtValue() != '\\') {
			os << '\'' << (char)v.getZExtValue() << '\'';
			break;
		}
		if (const auto *e = t->getAs<EnumType>()) {
			const EnumConstantDecl *named = nullptr;
			for (const EnumConstantDecl *c : e->getDecl()->enumerators())
				if (llvm::APSInt::isSameValue(c->getInitVal(), v))
					named = c;
			if (named) {
				named->printQualifiedName(os, pp);
				break;
			}
		}
		v.print(os, v.isSigned());
		break;
	}
	case TemplateArgument::Declaration:
		a.getAsDecl()->printQualifiedName(os, pp);
		break;
	case TemplateArgument::NullPtr:
		os << "nullptr";
		break;
	default:
		a.print(pp, os, true);
	}
}

/*
 * A lambda, a member of a local class or of an unnamed class: CodeGen
 * numbers such symbols ($_0, discriminators) in the order it meets them,
 * which a plugin cannot know, so their IR names cannot be predicted.  The
 * consumer marks them with an annotation instead, which CodeGen attaches
 * to the very IR function it emits (mv_claim_unnamed below).
 */
bool nameable(const NamedDecl *d)
{
	for (const DeclContext *c = d->getDeclContext(); c; c = c->getParent()) {
		if (c->isFunctionOrMethod())
			return false;
		if (const auto *r = dyn_cast<CXXRecordDecl>(c))
			if (r->isLambda() || (!r->getIdentifier() && !r->getTypedefNameForAnonDecl()))
				return false;
	}
	return true;
}

std::string display_name(const NamedDecl *d, bool as_scope = false);

/* GCC names the template parameters that `auto` parameters invent
 * auto:1, auto:2, ... counting through the unit; their numbers here, by
 * their places in the unit. */
struct Invented : RecursiveASTVisitor<Invented> {
	std::vector<const TemplateTypeParmDecl *> all;
	std::set<const TemplateTypeParmDecl *> seen;

	bool shouldVisitImplicitCode() const { return true; }

	bool VisitTemplateTypeParmDecl(TemplateTypeParmDecl *d)
	{
		if (d->isImplicit() && seen.insert(d).second)
			all.push_back(d);
		return true;
	}
};

unsigned invented_number(const TemplateTypeParmDecl *d)
{
	static const ASTContext *of;
	static std::map<const TemplateTypeParmDecl *, unsigned> number;
	const ASTContext &ctx = d->getASTContext();

	if (of != &ctx) {
		Invented v;
		v.TraverseDecl(ctx.getTranslationUnitDecl());
		const SourceManager &sm = ctx.getSourceManager();
		std::sort(v.all.begin(), v.all.end(), [&](const TemplateTypeParmDecl *a,
							      const TemplateTypeParmDecl *b) {
			return sm.isBeforeInTranslationUnit(a->getLocation(), b->getLocation()); });
		number.clear();
		for (size_t i = 0; i < v.all.size(); i++)
			number[v.all[i]] = i + 1;
		of = &ctx;
	}
	auto it = number.find(d);
	return it == number.end() ? 0 : it->second;
}

/* A generic lambda's parameters as GCC names them: each "auto" the
 * invented parameter's auto:N, in order (numbers; else from 1). */
std::string number_autos(const std::string &params, const std::vector<unsigned> &numbers)
{
	std::string out;
	unsigned n = 0;
	for (size_t i = 0; i < params.size();) {
		bool word = params.compare(i, 4, "auto") == 0 &&
			    (i == 0 || !(isalnum((unsigned char)params[i - 1]) || params[i - 1] == '_')) &&
			    (i + 4 == params.size() ||
			     !(isalnum((unsigned char)params[i + 4]) || params[i + 4] == '_' || params[i + 4] == ':'));
		if (word) {
			unsigned k = n < numbers.size() && numbers[n] ? numbers[n] : n + 1;
			out += "auto:" + std::to_string(k);
			n++;
			i += 4;
		} else {
			out += params[i++];
		}
	}
	return out;
}

/* The scopes of what nameable() refuses, as GCC spells them:
 * "main()::<lambda(int)>::", "<unnamed struct>::", "run(int)::Local::". */
std::string scope_prefix(const DeclContext *c, const PrintingPolicy &pp)
{
	if (!c || c->isTranslationUnit())
		return "";
	if (const auto *f = dyn_cast<FunctionDecl>(c)) {
		/* GCC: a lambda's class is the scope, not its operator() */
		if (const auto *l = dyn_cast<CXXRecordDecl>(f->getDeclContext()); l && l->isLambda())
			return scope_prefix(l, pp);
		return display_name(f, true) + "::";
	}
	std::string outer = scope_prefix(c->getParent(), pp);
	if (const auto *n = dyn_cast<NamespaceDecl>(c))
		return outer + (n->isAnonymousNamespace() ? "{anonymous}" : n->getName().str()) + "::";
	const auto *r = dyn_cast<CXXRecordDecl>(c);
	if (!r)
		return outer;           /* extern "C" { }, export { } */
	if (r->isLambda()) {
		const CXXMethodDecl *op = r->getLambdaCallOperator();
		std::string params;
		for (unsigned i = 0; i < op->getNumParams(); i++)
			params += (i ? ", " : "") + op->getParamDecl(i)->getType().getAsString(pp);
		std::vector<unsigned> numbers;
		if (const TemplateParameterList *t = r->getGenericLambdaTemplateParameterList())
			for (const NamedDecl *p : *t)
				if (const auto *tp = dyn_cast<TemplateTypeParmDecl>(p); tp && tp->isImplicit())
					numbers.push_back(invented_number(tp));
		return outer + "<lambda(" + number_autos(gcc_spelling(params), numbers) + ")>::";
	}
	if (const TypedefNameDecl *t = r->getIdentifier() ? nullptr : r->getTypedefNameForAnonDecl())
		return outer + t->getName().str() + "::";
	if (!r->getIdentifier())
		return outer + "<unnamed " + r->getKindName().str() + ">::";
	std::string name;
	llvm::raw_string_ostream os(name);
	r->printName(os, pp);
	if (const auto *s = dyn_cast<ClassTemplateSpecializationDecl>(r)) {
		os << '<';
		bool first = true;
		for (const TemplateArgument &a : s->getTemplateArgs().asArray())
			print_argument(a, pp, os, first);
		os << '>';
	}
	return outer + gcc_spelling(name) + "::";
}

/* The instance of a generic lambda's operator() that d is in, or null. */
const CXXMethodDecl *generic_lambda_instance(const NamedDecl *d)
{
	for (const DeclContext *c = d->getDeclContext(); c; c = c->getParent())
		if (const auto *m = dyn_cast<CXXMethodDecl>(c);
		    m && m->getParent()->isLambda() && m->getTemplateSpecializationArgs())
			return m;
	return nullptr;
}

/* GCC's " [with auto:1 = int; T = long int]": a generic lambda instance's
 * arguments, by its parameters' names. */
std::string with_arguments(const CXXMethodDecl *op, const PrintingPolicy &pp)
{
	const TemplateParameterList *params = op->getParent()->getGenericLambdaTemplateParameterList();
	const TemplateArgumentList *args = op->getTemplateSpecializationArgs();
	std::string out;
	for (unsigned i = 0; params && i < params->size() && i < args->size(); i++) {
		const NamedDecl *p = params->getParam(i);
		const auto *tp = dyn_cast<TemplateTypeParmDecl>(p);
		std::string value;
		llvm::raw_string_ostream os(value);
		bool first = true;
		print_argument(args->get(i), pp, os, first);
		out += (out.empty() ? " [with " : "; ") +
		       (tp && tp->isImplicit() ? "auto:" + std::to_string(invented_number(tp)) :
			p->getNameAsString()) + " = " + gcc_spelling(value);
	}
	return out.empty() ? out : out + "]";
}

/* Whether Clang prints d's scopes as GCC does: not an unnamed class's,
 * even one a typedef names. */
bool plain_scopes(const NamedDecl *d)
{
	for (const DeclContext *c = d->getDeclContext(); c; c = c->getParent())
		if (const auto *r = dyn_cast<CXXRecordDecl>(c); r && !r->getIdentifier())
			return false;
	return nameable(d);
}

/* A function as a scope (AS_SCOPE) always has its parameters:
 * "thrice<int>(int)::<lambda(int)>::operator()". */
std::string display_name(const NamedDecl *d, bool as_scope)
{
	const ASTContext &ctx = d->getASTContext();
	PrintingPolicy pp = policy(ctx);
	std::string name;
	llvm::raw_string_ostream os(name);
	const auto *f = dyn_cast<FunctionDecl>(d);
	if (plain_scopes(d)) {
		d->printQualifiedName(os, pp);
	} else {
		os << scope_prefix(d->getDeclContext(), pp);
		d->printName(os, pp);
	}
	if (f && f->getTemplateSpecializationArgs()) {
		os << '<';
		bool first = true;
		for (const TemplateArgument &a : f->getTemplateSpecializationArgs()->asArray())
			print_argument(a, pp, os, first);
		os << '>';
	}
	/* an instance of a template, or a lambda: no parameters, as GCC;
	 * but a function in an instance of a generic lambda has them, and
	 * the lambda's arguments after them */
	const auto *r = f ? dyn_cast<CXXRecordDecl>(f->getDeclContext()) : nullptr;
	const CXXMethodDecl *in_generic = f && !as_scope && !(r && r->isLambda()) ?
		generic_lambda_instance(f) : nullptr;
	if (f && (as_scope || in_generic ||
		  (!f->getTemplateInstantiationPattern(false) &&
		   !f->getTemplateSpecializationArgs() && !(r && r->isLambda())))) {
		os << '(';
		for (unsigned i = 0; i < f->getNumParams(); i++)
			os << (i ? ", " : "") << f->getParamDecl(i)->getType().getAsString(pp);
		if (f->isVariadic())
			os << (f->getNumParams() ? ", ..." : "...");
		os << ')';
		if (const auto *m = dyn_cast<CXXMethodDecl>(f)) {
			if (m->isConst())
				os << " const";
			if (m->isVolatile())
				os << " volatile";
			if (m->getRefQualifier() != RQ_None)
				os << (m->getRefQualifier() == RQ_LValue ? " &" : " &&");
		}
	}
	std::string shown = gcc_spelling(name);
	if (in_generic)
		shown += with_arguments(in_generic, pp);
	return shown;
}

/* What nameable() refuses, by the number in its annotation. */
struct Unnamed {
	mv_decl attr;
	std::string shown;
};
std::vector<Unnamed> unnamed;
std::map<const Decl *, std::string> tag_of;     /* by canonical declaration */
const char annotation_mark[] = "multiverse.unnamed";
const char annotation_prefix[] = "multiverse.unnamed.";

void declare(const NamedDecl *d, const mv_decl &attr)
{
	std::string shown = display_name(d);
	if (!nameable(d)) {
		/* only functions: a global variable has a name */
		auto *f = const_cast<FunctionDecl *>(cast<FunctionDecl>(d));
		std::string tag = annotation_prefix + std::to_string(unnamed.size());
		unnamed.push_back({ attr, shown });
		tag_of[f->getCanonicalDecl()] = tag;
		display[tag] = shown;
		mv_function_decls.insert(d);
		for (FunctionDecl *r : f->redecls())
			r->addAttr(AnnotateAttr::CreateImplicit(f->getASTContext(), tag, nullptr, 0));
		return;
	}
	MangleContext &mc = mangle_context(d->getASTContext());
	for (GlobalDecl gd : symbols(d)) {
		std::string ir = mv_ir_name_of(mc, gd);
		mv_record_decl(d, ir, attr);
		display[ir] = shown;
	}
}

/* The instances of the templates whose patterns have the attribute. */
struct Instances : RecursiveASTVisitor<Instances> {
	std::map<const Decl *, mv_decl> patterns;   /* by canonical declaration */

	bool shouldVisitTemplateInstantiations() const { return true; }

	const mv_decl *attr_of(const Decl *pattern)
	{
		auto it = pattern ? patterns.find(pattern->getCanonicalDecl()) : patterns.end();
		return it == patterns.end() ? nullptr : &it->second;
	}

	bool VisitFunctionDecl(FunctionDecl *f)
	{
		if (f->isTemplated() || f->isInvalidDecl() || f != f->getCanonicalDecl())
			return true;
		if (const mv_decl *a = attr_of(f->getTemplateInstantiationPattern(false)))
			declare(f, *a);
		return true;
	}

	/* A lambda's call operator, or a generic lambda's instances and
	 * what their bodies declare (lambdas, local classes): not
	 * declarations in the traversed scopes. */
	bool VisitLambdaExpr(LambdaExpr *l)
	{
		CXXMethodDecl *op = l->getCallOperator();
		FunctionTemplateDecl *t = op->getDescribedFunctionTemplate();
		if (!t)
			return VisitFunctionDecl(op);
		for (FunctionDecl *s : t->specializations()) {
			VisitFunctionDecl(s);
			if (s->hasBody())
				TraverseStmt(s->getBody());
		}
		return true;
	}

	bool VisitVarDecl(VarDecl *v)
	{
		if (v->isTemplated() || v->isInvalidDecl() || v != v->getCanonicalDecl() ||
		    !v->hasGlobalStorage())
			return true;
		if (const mv_decl *a = attr_of(v->getTemplateInstantiationPattern()))
			declare(v, *a);
		return true;
	}
};

struct Consumer : ASTConsumer {
	void HandleTranslationUnit(ASTContext &ctx) override
	{
		if (ctx.getDiagnostics().hasErrorOccurred())
			return;
		Instances instances;
		for (const Pending &p : pending) {
			if (p.decl->isTemplated())
				instances.patterns[p.decl->getCanonicalDecl()] = p.attr;
			else
				declare(p.decl, p.attr);
		}
		if (!instances.patterns.empty())
			instances.TraverseDecl(ctx.getTranslationUnitDecl());
	}
};

} // namespace

std::string mv_ir_name_of(MangleContext &mc, GlobalDecl gd)
{
	const auto *d = cast<NamedDecl>(gd.getDecl());
	if (!d->hasAttr<AsmLabelAttr>() && mc.shouldMangleDeclName(d))
		return mangled(mc, gd);
	return mv_c_ir_name(d);
}

std::string mv_ir_name(const NamedDecl *d)
{
	if (!d->getASTContext().getLangOpts().CPlusPlus)
		return mv_c_ir_name(d);
	/* until mv_claim_unnamed knows the real one */
	if (auto t = tag_of.find(d->getCanonicalDecl()); t != tag_of.end())
		return t->second;
	return mv_ir_name_of(mangle_context(d->getASTContext()), symbols(d)[0]);
}

void mv_cxx_defer(const NamedDecl *d, const mv_decl &attr)
{
	/* the last word on a declaration, as in C: an ("inline", N) of an
	 * earlier one stays (mv_record_decl) */
	pending.push_back({ d, attr });
	/* CodeGen lists a function's annotations if it had one when it was
	 * first referenced, which may be before the unit is complete; the
	 * consumer adds the one that says which declaration it is */
	if (const auto *f = dyn_cast<FunctionDecl>(d); f && !nameable(f))
		const_cast<FunctionDecl *>(f)->addAttr(AnnotateAttr::CreateImplicit(
			f->getASTContext(), annotation_mark, nullptr, 0));
}

std::string mv_display_name(llvm::StringRef ir)
{
	auto it = display.find(ir.str());
	return it == display.end() ? ir.str() : it->second;
}

std::unique_ptr<ASTConsumer> mv_make_cxx_recorder(void)
{
	return std::make_unique<Consumer>();
}

std::string mv_source_name(const NamedDecl *d)
{
	if (!d->getASTContext().getLangOpts().CPlusPlus)
		return d->getName().str();
	return display_name(d);
}

/*
 * CodeGen lists each IR function it emitted for a declaration with an
 * annotation in llvm.global.annotations: { function, string, file, line,
 * arguments }.  The entries declare() added name the functions nameable()
 * refuses; they are recorded by the name the function has here, and
 * taken out of the list, which would otherwise keep an unused function
 * alive.  The user's own annotations stay.
 */
void mv_claim_unnamed(llvm::Module &m)
{
	llvm::GlobalVariable *list = m.getNamedGlobal("llvm.global.annotations");
	auto *entries = list && list->hasInitializer() ?
		dyn_cast<llvm::ConstantArray>(list->getInitializer()) : nullptr;
	if (!entries)
		return;
	std::vector<llvm::Constant *> kept;
	std::set<llvm::Constant *> dropped;
	std::set<llvm::Function *> marked, numbered;
	for (llvm::Use &u : entries->operands()) {
		auto *e = cast<llvm::Constant>(u.get());
		auto *fn = dyn_cast<llvm::Function>(e->getOperand(0)->stripPointerCasts());
		auto *str = dyn_cast<llvm::GlobalVariable>(e->getOperand(1)->stripPointerCasts());
		auto *text = str && str->hasInitializer() ?
			dyn_cast<llvm::ConstantDataSequential>(str->getInitializer()) : nullptr;
		llvm::StringRef tag = text && text->isCString() ? text->getAsCString() : "";
		unsigned long k;
		bool mark = fn && tag == annotation_mark;
		if (mark)
			marked.insert(fn);
		if (!mark && (!fn || !tag.consume_front(annotation_prefix) ||
			      tag.getAsInteger(10, k) || k >= unnamed.size())) {
			kept.push_back(e);
			continue;
		}
		if (!mark) {
			numbered.insert(fn);
			std::string ir = fn->getName().str();
			mv_declared[ir] = unnamed[k].attr;
			display[ir] = unnamed[k].shown;
			auto r = mv_report.find(annotation_prefix + std::to_string(k));
			if (r != mv_report.end())
				mv_report[ir] = r->second;
		}
		for (unsigned i = 1; i < e->getNumOperands(); i++)
			dropped.insert(cast<llvm::Constant>(e->getOperand(i)->stripPointerCasts()));
	}
	/* an instance the consumer did not find: refused, never dropped */
	for (llvm::Function *f : marked)
		if (!numbered.count(f) && !mv_declared.count(f->getName().str()))
			m.getContext().emitError("multiverse: '" + llvm::demangle(f->getName().str()) +
						 "' has the attribute, but the Clang plugin did not find "
						 "its declaration to record it; please report this");
	if (kept.size() == entries->getNumOperands())
		return;
	for (size_t k = 0; k < unnamed.size(); k++)
		mv_report.erase(annotation_prefix + std::to_string(k));
	if (!kept.empty()) {
		auto *type = llvm::ArrayType::get(entries->getType()->getElementType(), kept.size());
		auto *now = new llvm::GlobalVariable(m, type, false, list->getLinkage(),
						     llvm::ConstantArray::get(type, kept));
		now->setSection(list->getSection());
		now->takeName(list);
	}
	list->eraseFromParent();
	for (llvm::Function &f : m)
		f.removeDeadConstantUsers();
	/* the strings only those entries used */
	for (llvm::Constant *c : dropped)
		if (auto *g = dyn_cast<llvm::GlobalVariable>(c)) {
			g->removeDeadConstantUsers();
			if (g->use_empty() && g->getSection() == "llvm.metadata")
				g->eraseFromParent();
		}
}
