/* SPDX-License-Identifier: MIT */
/*
 * Fix-it hints for the plugin's diagnostics: where the fix is mechanical
 * (drop a `const`, a thread-local keyword, an attribute's arguments or an
 * `always_inline`; correct a misspelled "tracked"), the diagnostic
 * carries the edit, which GCC shows under the caret and prints with
 * -fdiagnostics-parseable-fixits for editors.
 *
 * A plugin sees trees, not tokens: a declaration keeps the location of
 * its name only.  So the tokens are found again in the source text, by a
 * small lexer over the declaration's line and the lines just before it
 * that continue the same declaration.  A hint is given only when the
 * text says unambiguously which token to edit; otherwise the diagnostic
 * goes without one.  Nothing here is given for a declaration that comes
 * out of a macro expansion, whose tokens are not where its location is.
 */
#include "multiverse.h"

#include "spellcheck.h"

#include <cstring>

namespace {

struct token {
	int line, col;          /* 1-based, col in bytes as GCC counts them */
	std::string text;       /* an identifier, a literal or one punctuator */
	int end;                /* the column after it, and after any spaces */
};

/* The tokens of one line; a comment ends a line's useful text at its
 * start (a comment opened on an earlier line is not looked for). */
void lex_line(const char *s, size_t n, int line, std::vector<token> &out)
{
	size_t i = 0;
	auto skip_space = [&] {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
	};
	skip_space();
	while (i < n) {
		size_t start = i;
		char c = s[i];
		if (c == '/' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*'))
			break;
		if (ISIDST(c)) {
			while (i < n && ISIDNUM(s[i]))
				i++;
		} else if (c == '"' || c == '\'') {
			for (i++; i < n && s[i] != c; i++)
				if (s[i] == '\\')
					i++;
			if (i >= n)
				break;  /* continues on the next line: stop here */
			i++;
		} else if (ISDIGIT(c)) {
			while (i < n && (ISIDNUM(s[i]) || s[i] == '.'))
				i++;
		} else {
			i++;
		}
		token t = { line, (int)start + 1, std::string(s + start, i - start), 0 };
		skip_space();
		t.end = (int)i + 1;
		out.push_back(t);
	}
}

/* The spelling location of a declaration's name, if it has one in a file
 * (not in a macro expansion). */
bool source_of(location_t loc, expanded_location *x)
{
	loc = get_pure_location(loc);
	if (loc <= BUILTINS_LOCATION || linemap_location_from_macro_expansion_p(line_table, loc))
		return false;
	*x = expand_location(loc);
	return x->file && x->line > 0 && x->column > 0;
}

/* The tokens of the declaration named at loc, as far as its own lines
 * go: the line of its name, and the lines before it that do not end an
 * earlier declaration or statement (at most four).  *at is the index of
 * the name's token. */
bool decl_tokens(location_t loc, std::vector<token> &out, size_t *at)
{
	expanded_location x;
	if (!source_of(loc, &x))
		return false;
	int first = x.line;
	while (first > 1 && x.line - first < 4) {
		char_span prev = location_get_source_line(x.file, first - 1);
		if (!prev)
			break;
		std::vector<token> t;
		lex_line(prev.get_buffer(), prev.length(), first - 1, t);
		bool ends = t.empty();  /* a blank line or a comment */
		for (const token &k : t)
			ends |= k.text == ";" || k.text == "{" || k.text == "}" ||
				k.text[0] == '#';
		if (ends)
			break;
		first--;
	}
	for (int l = first; l <= x.line; l++) {
		char_span text = location_get_source_line(x.file, l);
		if (!text)
			return false;
		lex_line(text.get_buffer(), text.length(), l, out);
	}
	for (size_t i = 0; i < out.size(); i++)
		if (out[i].line == x.line && out[i].col == x.column) {
			*at = i;
			return true;
		}
	return false;
}

location_t position(location_t near, int line, int col)
{
	const line_map_ordinary *map = linemap_check_ordinary(
		linemap_lookup(line_table, get_pure_location(near)));
	return linemap_position_for_line_and_column(line_table, map, line, col);
}

/* Tokens from..to, and the spaces after the last one when trailing. */
source_range span(location_t near, const token &from, const token &to, bool trailing)
{
	int last = trailing ? to.end - 1 : to.col + (int)to.text.size() - 1;
	return { position(near, from.line, from.col), position(near, to.line, last) };
}

bool is_attribute_name(const std::string &t, const char *name)
{
	return t == name || t == std::string("__") + name + "__";
}

/* The index of the parenthesis that closes the one at open, or 0. */
size_t closing(const std::vector<token> &t, size_t open)
{
	int depth = 0;
	for (size_t i = open; i < t.size(); i++) {
		depth += t[i].text == "(";
		depth -= t[i].text == ")";
		if (!depth)
			return i;
	}
	return 0;
}

} /* namespace */

/* The top-level `const` of the variable named at rl's location: the one
 * just before the name (`int const x`, `void (*const fp)(void)`), or for
 * an integer, the only `const` of its specifiers (`const int x`). */
void mv_fixit_remove_const(rich_location *rl, bool pointer)
{
	location_t loc = rl->get_loc();
	std::vector<token> t;
	size_t at;
	if (!decl_tokens(loc, t, &at) || !at)
		return;
	size_t which = 0;
	bool found = false;
	if (t[at - 1].text == "const") {
		which = at - 1, found = true;
	} else if (!pointer) {
		for (size_t i = at; i-- > 0 && t[i].text != "," && t[i].text != "*"; )
			if (t[i].text == "const") {
				if (found)
					return;         /* twice: leave it to the user */
				which = i, found = true;
			}
	}
	if (found)
		rl->add_fixit_remove(span(loc, t[which], t[which], true));
}

/* The thread-local storage class among the specifiers before the name. */
void mv_fixit_remove_thread_local(rich_location *rl)
{
	location_t loc = rl->get_loc();
	std::vector<token> t;
	size_t at;
	if (!decl_tokens(loc, t, &at))
		return;
	for (size_t i = at; i-- > 0 && t[i].text != ","; )
		if (t[i].text == "__thread" || t[i].text == "_Thread_local" ||
		    t[i].text == "thread_local") {
			rl->add_fixit_remove(span(loc, t[i], t[i], true));
			return;
		}
}

/* The parenthesized arguments of the declaration's one multiverse
 * attribute: multiverse("tracked") becomes multiverse. */
void mv_fixit_remove_attribute_args(rich_location *rl)
{
	location_t loc = rl->get_loc();
	std::vector<token> t;
	size_t at, found = 0, n = 0;
	if (!decl_tokens(loc, t, &at))
		return;
	for (size_t i = 0; i + 1 < t.size(); i++)
		if (is_attribute_name(t[i].text, "multiverse") && t[i + 1].text == "(")
			found = i + 1, n++;
	size_t close = n == 1 ? closing(t, found) : 0;
	if (close)
		rl->add_fixit_remove(span(loc, t[found], t[close], false));
}

/* always_inline in the definition's attribute list, with the comma that
 * joins it to a neighbour. */
void mv_fixit_remove_always_inline(rich_location *rl)
{
	location_t loc = rl->get_loc();
	std::vector<token> t;
	size_t at, found = 0, n = 0;
	if (!decl_tokens(loc, t, &at))
		return;
	for (size_t i = 1; i + 1 < t.size(); i++)
		if (is_attribute_name(t[i].text, "always_inline") &&
		    (t[i - 1].text == "(" || t[i - 1].text == ",") &&
		    (t[i + 1].text == ")" || t[i + 1].text == ","))
			found = i, n++;
	if (n != 1)
		return;
	if (t[found + 1].text == ",")
		rl->add_fixit_remove(span(loc, t[found], t[found + 1], true));
	else if (t[found - 1].text == ",")
		rl->add_fixit_remove(span(loc, t[found - 1], t[found], false));
	else
		rl->add_fixit_remove(span(loc, t[found], t[found], false));
}

/* The attribute's first argument meant, if given ("trackd") is close to
 * it: "tracked" alone, "values" followed by values.  With a fix-it
 * replacing the literal if it is found once. */
const char *mv_fixit_attribute_string(rich_location *rl, const char *given,
				      unsigned n_args)
{
	auto_vec<const char *> known;
	known.safe_push(n_args == 1 ? "tracked" : "values");
	const char *best = find_closest_string(given, &known);
	if (!best)
		return NULL;

	location_t loc = rl->get_loc();
	std::vector<token> t;
	size_t at, found = 0, n = 0;
	std::string literal = std::string("\"") + given + "\"";
	if (decl_tokens(loc, t, &at))
		for (size_t i = 0; i < t.size(); i++)
			if (t[i].text == literal)
				found = i, n++;
	if (n == 1)
		rl->add_fixit_replace(span(loc, t[found], t[found], false),
				      (std::string("\"") + best + "\"").c_str());
	return best;
}
