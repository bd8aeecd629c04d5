/* SPDX-License-Identifier: MIT */
/*
 * Fix-it hints for the plugin's diagnostics, where the fix is mechanical:
 * drop a switch's `const` or thread-local keyword, or an `always_inline`.
 * (The attribute's own arguments have source ranges, which attribute.cpp
 * edits directly.)  Clang keeps no location for a qualifier or a storage
 * class, so the declaration's tokens before its name are lexed again; a
 * hint is given only when they say unambiguously which token to drop,
 * and never inside a macro expansion.  The same rules as the GCC front
 * end's (gcc/fixit.cc).
 */
#include "multiverse.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace {

/* The raw tokens from the declaration's start to its name (excluded);
 * *shared says whether its specifiers also serve other declarators
 * (`const int a, b`, `const int a = 1, b`): a comma outside brackets
 * before the name or after it, up to the declaration's `;`.  The raw
 * lexer does not preprocess: a directive among those tokens (an #if
 * branch, a #define) makes them unreliable, and gives no hint. */
bool tokens_before_name(const DeclaratorDecl *d, SmallVectorImpl<Token> &out, bool *shared)
{
	const ASTContext &ctx = d->getASTContext();
	const SourceManager &sm = ctx.getSourceManager();
	SourceLocation begin = d->getOuterLocStart(), name = d->getLocation();
	if (begin.isMacroID() || name.isMacroID() ||
	    sm.getFileID(begin) != sm.getFileID(name) ||
	    !sm.isBeforeInTranslationUnit(begin, name))
		return false;
	bool invalid = false;
	StringRef buf = sm.getBufferData(sm.getFileID(begin), &invalid);
	if (invalid)
		return false;
	Lexer lex(sm.getLocForStartOfFile(sm.getFileID(begin)), ctx.getLangOpts(),
		  buf.begin(), buf.begin() + sm.getFileOffset(begin), buf.end());
	Token t;
	int depth = 0;
	*shared = false;
	bool after = false;
	while (!lex.LexFromRawLexer(t) || t.isNot(tok::eof)) {
		if (!after && !sm.isBeforeInTranslationUnit(t.getLocation(), name))
			after = true;
		if (t.is(tok::hash) && t.isAtStartOfLine())
			return false;
		if (!after)
			out.push_back(t);
		depth += t.isOneOf(tok::l_paren, tok::l_square, tok::l_brace);
		depth -= t.isOneOf(tok::r_paren, tok::r_square, tok::r_brace);
		if (depth == 0 && t.is(tok::comma))
			*shared = true;
		if (depth < 0 || (after && depth == 0 && t.is(tok::semi)))
			return depth == 0;
		if (t.is(tok::eof))
			break;
	}
	return false;
}

bool is(const Token &t, StringRef word)
{
	return t.is(tok::raw_identifier) && t.getRawIdentifier() == word;
}

/* Past the spaces and tabs at at. */
SourceLocation past_spaces(const SourceManager &sm, SourceLocation at)
{
	const char *p = sm.getCharacterData(at);
	unsigned spaces = 0;
	while (p[spaces] == ' ' || p[spaces] == '\t')
		spaces++;
	return at.getLocWithOffset(spaces);
}

/* The token, and the spaces up to the next one. */
FixItHint remove_token(const DeclaratorDecl *d, const Token &t)
{
	const SourceManager &sm = d->getASTContext().getSourceManager();
	return FixItHint::CreateRemoval(CharSourceRange::getCharRange(
		t.getLocation(), past_spaces(sm, t.getEndLoc())));
}

} // namespace

FixItHint mv_fixit_remove_const(const DeclaratorDecl *d)
{
	SmallVector<Token, 16> t;
	bool shared;
	if (!tokens_before_name(d, t, &shared) || t.size() < 2)
		return FixItHint();
	/* the pointer's own: `void (*const fp)(void)` */
	if (is(t.back(), "const") && t[t.size() - 2].is(tok::star))
		return remove_token(d, t.back());
	/* else a specifier, which must serve this declarator alone */
	if (shared || llvm::any_of(t, [](const Token &k) { return k.is(tok::star); }))
		return FixItHint();
	const Token *found = nullptr;
	for (const Token &k : t)
		if (is(k, "const")) {
			if (found)
				return FixItHint();     /* twice: leave it to the user */
			found = &k;
		}
	return found ? remove_token(d, *found) : FixItHint();
}

FixItHint mv_fixit_remove_thread_local(const DeclaratorDecl *d)
{
	SmallVector<Token, 16> t;
	bool shared;
	if (!tokens_before_name(d, t, &shared) || shared)
		return FixItHint();
	for (const Token &k : t)
		if (is(k, "__thread") || is(k, "_Thread_local") || is(k, "thread_local"))
			return remove_token(d, k);
	return FixItHint();
}

/* An attribute of fn, in a list, with the comma after it if there is
 * one: __attribute__((always_inline, multiverse)) keeps (multiverse).
 * Only where it is written on one of fn's declarations: not where
 * #pragma clang attribute applies it to a whole region. */
FixItHint mv_fixit_remove_attribute(const Attr *a, const FunctionDecl *fn)
{
	const ASTContext &ctx = fn->getASTContext();
	const SourceManager &sm = ctx.getSourceManager();
	SourceRange r = a->getRange();
	if (r.isInvalid() || r.getBegin().isMacroID() || r.getEnd().isMacroID() ||
	    llvm::none_of(fn->redecls(), [&](const FunctionDecl *d) {
		    SourceRange in = d->getSourceRange();
		    return sm.isPointWithin(r.getBegin(), in.getBegin(), in.getEnd());
	    }))
		return FixItHint();
	SourceLocation end = Lexer::getLocForEndOfToken(r.getEnd(), 0, sm, ctx.getLangOpts());
	std::optional<Token> next = Lexer::findNextToken(r.getEnd(), sm, ctx.getLangOpts());
	if (next && next->is(tok::comma))
		end = past_spaces(sm, next->getEndLoc());
	return FixItHint::CreateRemoval(CharSourceRange::getCharRange(r.getBegin(), end));
}
