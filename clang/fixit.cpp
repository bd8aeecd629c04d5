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

/* The raw tokens from the declaration's start to its name (excluded). */
bool tokens_before_name(const DeclaratorDecl *d, SmallVectorImpl<Token> &out)
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
	while (!lex.LexFromRawLexer(t) && sm.isBeforeInTranslationUnit(t.getLocation(), name))
		out.push_back(t);
	return true;
}

bool is(const Token &t, StringRef word)
{
	return t.is(tok::raw_identifier) && t.getRawIdentifier() == word;
}

/* The token, and the spaces up to the next one. */
FixItHint remove_token(const DeclaratorDecl *d, const Token &t)
{
	const ASTContext &ctx = d->getASTContext();
	const SourceManager &sm = ctx.getSourceManager();
	SourceLocation end = t.getEndLoc();
	const char *p = sm.getCharacterData(end);
	unsigned spaces = 0;
	while (p[spaces] == ' ' || p[spaces] == '\t')
		spaces++;
	return FixItHint::CreateRemoval(CharSourceRange::getCharRange(
		t.getLocation(), end.getLocWithOffset(spaces)));
}

} // namespace

FixItHint mv_fixit_remove_const(const DeclaratorDecl *d, bool pointer)
{
	SmallVector<Token, 16> t;
	if (!tokens_before_name(d, t) || t.empty())
		return FixItHint();
	if (is(t.back(), "const"))
		return remove_token(d, t.back());
	if (pointer)
		return FixItHint();
	const Token *found = nullptr;
	for (size_t i = t.size(); i-- > 0 && !t[i].is(tok::comma) && !t[i].is(tok::star); )
		if (is(t[i], "const")) {
			if (found)
				return FixItHint();     /* twice: leave it to the user */
			found = &t[i];
		}
	return found ? remove_token(d, *found) : FixItHint();
}

FixItHint mv_fixit_remove_thread_local(const DeclaratorDecl *d)
{
	SmallVector<Token, 16> t;
	if (!tokens_before_name(d, t))
		return FixItHint();
	for (size_t i = t.size(); i-- > 0 && !t[i].is(tok::comma); )
		if (is(t[i], "__thread") || is(t[i], "_Thread_local") ||
		    is(t[i], "thread_local"))
			return remove_token(d, t[i]);
	return FixItHint();
}

/* An attribute in a list, with the comma after it if there is one:
 * __attribute__((always_inline, multiverse)) keeps (multiverse). */
FixItHint mv_fixit_remove_attribute(const Attr *a, const ASTContext &ctx)
{
	const SourceManager &sm = ctx.getSourceManager();
	SourceRange r = a->getRange();
	if (r.isInvalid() || r.getBegin().isMacroID() || r.getEnd().isMacroID())
		return FixItHint();
	SourceLocation end = Lexer::getLocForEndOfToken(r.getEnd(), 0, sm, ctx.getLangOpts());
	std::optional<Token> next = Lexer::findNextToken(r.getEnd(), sm, ctx.getLangOpts());
	if (next && next->is(tok::comma)) {
		end = next->getEndLoc();
		const char *p = sm.getCharacterData(end);
		unsigned spaces = 0;
		while (p[spaces] == ' ' || p[spaces] == '\t')
			spaces++;
		end = end.getLocWithOffset(spaces);
	}
	return FixItHint::CreateRemoval(CharSourceRange::getCharRange(r.getBegin(), end));
}
