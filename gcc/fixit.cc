/* SPDX-License-Identifier: MIT */
/*
 * Fix-it hints for the plugin's diagnostics: where the fix is mechanical
 * (drop a `const`, a thread-local keyword, an attribute's arguments or an
 * `always_inline`; correct a misspelled "tracked"), the diagnostic
 * carries the edit, which GCC shows under the caret and prints with
 * -fdiagnostics-parseable-fixits for editors.
 *
 * A plugin sees trees, not tokens: a declaration keeps the location of
 * its name only.  So the declaration's tokens are found again in the
 * source text, by a small lexer over the lines around its name: from the
 * end of whatever precedes it (`;`, `{`, `}` or a directive) to the end of
 * its declarator (`;`, `{`, `=` or `,` outside parentheses).  A wrong edit
 * is worse than none, so a hint is given only when:
 *   - the name is spelled in a file (not by a macro, not under #line),
 *     and the text there is the name;
 *   - the declaration's start is found within four lines of its name;
 *   - the rule names exactly one token in the declaration;
 *   - an edit to a specifier (an integer's `const`, a thread-local
 *     keyword) touches no other declarator: `const int a, b` gets none;
 *   - every position maps back to the same file, line and column.
 */
#include "multiverse.h"

#include "spellcheck.h"

#include <algorithm>
#include <cstring>

namespace {

struct token {
	int line, col;          /* 1-based, col in bytes as GCC counts them */
	std::string text;       /* an identifier, a literal or one punctuator */
	int end;                /* the column after it, and after any spaces */
};

/* What a declaration's text shows. */
struct decl_text {
	location_t loc;                 /* the name's */
	expanded_location where;        /* of the name */
	std::vector<token> t;           /* the declaration's tokens only */
	size_t name;                    /* the name's index in t */
	bool shared;                    /* its specifiers serve other declarators */
};

/* The tokens of one line.  *in_comment carries a block comment over
 * lines; a line's comments are skipped; "#" opens a directive, which
 * ends a declaration like ";". */
void lex_line(const char *s, size_t n, int line, bool *in_comment,
	      std::vector<token> &out)
{
	size_t i = 0;
	auto skip_space = [&] {
		for (;;) {
			while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
				i++;
			if (*in_comment) {
				while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
					i++;
				if (i + 1 >= n) {
					i = n;
					return;
				}
				i += 2, *in_comment = false;
			} else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
				i += 2, *in_comment = true;
			} else if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
				i = n;
				return;
			} else if (i + 1 < n && s[i] == '*' && s[i + 1] == '/') {
				/* the lines began inside a comment: what came
				 * before is not code, and where the
				 * declaration starts is not known */
				out.clear();
				out.push_back({ line, (int)i + 1, "?", 0 });
				i += 2;
			} else {
				return;
			}
		}
	};
	skip_space();
	while (i < n) {
		size_t start = i;
		char c = s[i];
		if (ISIDST(c)) {
			while (i < n && ISIDNUM(s[i]))
				i++;
		} else if (c == '"' || c == '\'') {
			for (i++; i < n && s[i] != c; i++)
				if (s[i] == '\\')
					i++;
			if (i >= n) {
				out.push_back({ line, (int)start + 1, "#", 0 });
				return;  /* a literal continued on the next line */
			}
			i++;
		} else if (ISDIGIT(c)) {
			/* with C++14's digit separators: 1'000 */
			while (i < n && (ISIDNUM(s[i]) || s[i] == '.' ||
					 (s[i] == '\'' && i + 1 < n && ISXDIGIT(s[i + 1]))))
				i++;
		} else {
			i++;
		}
		token t = { line, (int)start + 1, std::string(s + start, i - start), 0 };
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		t.end = (int)i + 1;     /* a comment after it stays */
		skip_space();
		out.push_back(t);
	}
}

bool ends_before(const std::string &t)
{
	return t == ";" || t == "{" || t == "}" || t == "#" || t == "?";
}

bool ends_after(const std::string &t)
{
	return t == ";" || t == "{" || t == "=" || t == "," || t == "#";
}

/* The text of the declaration decl, named at its DECL_SOURCE_LOCATION. */
bool decl_tokens(tree decl, decl_text *d)
{
	location_t loc = get_pure_location(DECL_SOURCE_LOCATION(decl));
	if (loc <= BUILTINS_LOCATION || !DECL_NAME(decl) ||
	    linemap_location_from_macro_expansion_p(line_table, loc))
		return false;
	const line_map_ordinary *map = linemap_check_ordinary(linemap_lookup(line_table, loc));
	if (!map || map->reason == LC_RENAME_VERBATIM)      /* #line */
		return false;
	d->loc = loc;
	d->where = expand_location(loc);
	if (!d->where.file || d->where.line <= 0 || d->where.column <= 0)
		return false;

	const int before = 4, after = 2;
	int first = d->where.line > before ? d->where.line - before : 1;
	std::vector<token> all;
	/* A line continued with a backslash: a directive's lines are its
	 * own, and one begun before the first line read may be a directive
	 * too; the lines before it are given up. */
	auto continues = [](char_span text) {
		return text && text.length() && text[text.length() - 1] == '\\';
	};
	bool in_comment = false;
	bool continued = first > 1 && continues(location_get_source_line(d->where.file, first - 1));
	for (int l = first; l <= d->where.line + after; l++) {
		char_span text = location_get_source_line(d->where.file, l);
		if (!text) {
			if (l <= d->where.line)
				return false;
			break;
		}
		std::vector<token> line;
		lex_line(text.get_buffer(), text.length(), l, &in_comment, line);
		/* a directive: nothing of it belongs to a declaration */
		if (continued && !(line.size() && line[0].text == "#")) {
			line.clear();
			line.push_back({ l, 1, "?", 0 });
		} else if (!line.empty() && line[0].text == "#") {
			line.resize(1);
		}
		continued = continues(text) && (continued || (line.size() &&
				(line[0].text == "#" || line[0].text == "?")));
		if (!line.empty() && line[0].text == "?")
			all.clear();
		all.insert(all.end(), line.begin(), line.end());
	}
	size_t name = all.size();
	for (size_t i = 0; i < all.size(); i++)
		if (all[i].line == d->where.line && all[i].col == d->where.column)
			name = i;
	if (name == all.size() ||
	    all[name].text != IDENTIFIER_POINTER(DECL_NAME(decl)))
		return false;

	/* Back to the end of what precedes the declaration; a first line
	 * that is not the file's first may be the middle of a declaration
	 * (or a comment) begun earlier. */
	size_t start = name;
	int depth = 0;
	bool shared = false;
	while (start > 0) {
		const std::string &t = all[start - 1].text;
		depth += t == ")";
		depth -= t == "(";
		if (depth <= 0 && ends_before(t))
			break;
		shared |= depth == 0 && t == ",";
		start--;
	}
	if ((start == 0 && first != 1) || (start > 0 && all[start - 1].text == "?"))
		return false;
	size_t end = name + 1;
	depth = 0;
	for (; end < all.size(); end++) {
		const std::string &t = all[end].text;
		depth += t == "(";
		depth -= t == ")";
		if (depth <= 0 && ends_after(t))
			break;
	}
	if (end == all.size())
		return false;
	/* Other declarators after this one, past an initializer (= 1, b;
	 * {1}, c;): to the declaration's ';', which must be in view. */
	depth = 0;
	size_t semi = end;
	for (; semi < all.size(); semi++) {
		const std::string &t = all[semi].text;
		depth += t == "(" || t == "[" || t == "{";
		depth -= t == ")" || t == "]" || t == "}";
		if (depth < 0 || t == "#" || (depth == 0 && t == ";"))
			break;
		shared |= depth == 0 && t == ",";
	}
	if (semi == all.size() || all[semi].text != ";")
		shared = true;          /* not known: as if it were */
	d->t.assign(all.begin() + start, all.begin() + end);
	d->name = name - start;
	d->shared = shared;
	return true;
}

/* The location of line:col in the name's file, or UNKNOWN_LOCATION: the
 * line may lie in an earlier line map than the name's (libcpp starts a
 * new one after a long line), so each candidate is checked by expanding
 * it again. */
location_t position(const decl_text &d, int line, int col)
{
	const line_map_ordinary *first = LINEMAPS_ORDINARY_MAP_AT(line_table, 0);
	const line_map_ordinary *map = linemap_check_ordinary(linemap_lookup(line_table, d.loc));
	for (int tries = 0; map && tries < 64; tries++, map--) {
		if (ORDINARY_MAP_STARTING_LINE_NUMBER(map) <= (linenum_type)line) {
			location_t at = linemap_position_for_line_and_column(line_table,
									     map, line, col);
			expanded_location x = expand_location(at);
			if (x.file && !strcmp(x.file, d.where.file) && x.line == line &&
			    x.column == col)
				return at;
		}
		if (map == first)
			break;
	}
	return UNKNOWN_LOCATION;
}

/* Removes (or replaces with text) tokens from..to of d, with the spaces
 * after the last one when trailing; nothing if a position is lost. */
void edit(rich_location *rl, const decl_text &d, size_t from, size_t to,
	  bool trailing, const char *text = NULL)
{
	const token &a = d.t[from], &b = d.t[to];
	int last = trailing ? b.end - 1 : b.col + (int)b.text.size() - 1;
	location_t start = position(d, a.line, a.col), finish = position(d, b.line, last);
	if (start == UNKNOWN_LOCATION || finish == UNKNOWN_LOCATION)
		return;
	source_range r = { start, finish };
	if (text)
		rl->add_fixit_replace(r, text);
	else
		rl->add_fixit_remove(r);
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

/* Whether token k is an attribute of a list __attribute__((...)) (or a
 * C2x [[...]] one), not a parameter type or a macro's argument. */
bool in_attribute_list(const std::vector<token> &t, size_t k)
{
	int depth = 0;
	for (size_t i = k; i-- > 0; ) {
		if (t[i].text == ")" || t[i].text == "]") {
			depth++;
		} else if (t[i].text == "(" || t[i].text == "[") {
			if (depth--)
				continue;
			return i >= 2 && t[i - 1].text == t[i].text &&
			       (t[i].text == "[" ||
				t[i - 2].text == "__attribute__" || t[i - 2].text == "__attribute");
		}
	}
	return false;
}

/* The index of the one token for which pick() holds, or SIZE_MAX. */
template <typename F>
size_t only(const decl_text &d, size_t from, size_t to, F pick)
{
	size_t found = SIZE_MAX;
	for (size_t i = from; i < to; i++)
		if (pick(i)) {
			if (found != SIZE_MAX)
				return SIZE_MAX;
			found = i;
		}
	return found;
}

} /* namespace */

/* The top-level `const` of the switch decl: the one just after a `*`
 * before the name (`void (*const fp)(void)`), or else the only `const`
 * among its specifiers (`const int x`, `int const x`, `const fn_t fp`),
 * if they serve no other declarator.  In C++ a namespace-scope `const`
 * also makes the variable internal: removing it would change its
 * linkage, so such a variable gets no hint. */
void mv_fixit_remove_const(rich_location *rl, tree decl)
{
	decl_text d;
	if ((lang_GNU_CXX() && VAR_P(decl) && !TREE_PUBLIC(decl)) ||
	    !decl_tokens(decl, &d) || d.name < 2)
		return;
	size_t n = d.name;
	if (d.t[n - 1].text == "const" && d.t[n - 2].text == "*") {
		edit(rl, d, n - 1, n - 1, true);
		return;
	}
	if (d.shared || std::any_of(d.t.begin(), d.t.begin() + n,
				    [](const token &k) { return k.text == "*"; }))
		return;
	size_t c = only(d, 0, n, [&](size_t i) { return d.t[i].text == "const"; });
	if (c != SIZE_MAX)
		edit(rl, d, c, c, true);
}

/* The thread-local keyword among the specifiers, if they serve no other
 * declarator. */
void mv_fixit_remove_thread_local(rich_location *rl, tree decl)
{
	decl_text d;
	if (!decl_tokens(decl, &d) || d.shared)
		return;
	size_t k = only(d, 0, d.name, [&](size_t i) {
		return d.t[i].text == "__thread" || d.t[i].text == "_Thread_local" ||
		       d.t[i].text == "thread_local"; });
	if (k != SIZE_MAX)
		edit(rl, d, k, k, true);
}

/* The parenthesized arguments of the declaration's one multiverse
 * attribute: multiverse("tracked") becomes multiverse. */
void mv_fixit_remove_attribute_args(rich_location *rl, tree decl)
{
	decl_text d;
	if (!decl_tokens(decl, &d))
		return;
	size_t open = only(d, 1, d.t.size(), [&](size_t i) {
		return d.t[i].text == "(" && is_attribute_name(d.t[i - 1].text, "multiverse") &&
		       in_attribute_list(d.t, i - 1); });
	size_t close = open != SIZE_MAX ? closing(d.t, open) : 0;
	if (close)
		edit(rl, d, open, close, false);
}

/* always_inline in the definition's attribute list, with the comma that
 * joins it to a neighbour. */
void mv_fixit_remove_always_inline(rich_location *rl, tree decl)
{
	decl_text d;
	if (!decl_tokens(decl, &d) || d.t.size() < 3)
		return;
	const std::vector<token> &t = d.t;
	size_t k = only(d, 1, t.size() - 1, [&](size_t i) {
		return is_attribute_name(t[i].text, "always_inline") &&
		       in_attribute_list(t, i) &&
		       (t[i - 1].text == "(" || t[i - 1].text == ",") &&
		       (t[i + 1].text == ")" || t[i + 1].text == ","); });
	if (k == SIZE_MAX)
		return;
	if (t[k + 1].text == ",")
		edit(rl, d, k, k + 1, true);
	else if (t[k - 1].text == ",")
		edit(rl, d, k - 1, k, false);
	else
		edit(rl, d, k, k, false);
}

/* The attribute's first argument meant, if given ("trackd") is close to
 * it: "tracked" alone, "values" followed by values.  With a fix-it
 * replacing the literal if the declaration spells it once. */
const char *mv_fixit_attribute_string(rich_location *rl, tree decl,
				      const char *given, unsigned n_args)
{
	auto_vec<const char *> known;
	known.safe_push(n_args == 1 ? "tracked" : "values");
	const char *best = find_closest_string(given, &known);
	if (!best)
		return NULL;

	decl_text d;
	std::string literal = std::string("\"") + given + "\"";
	if (decl_tokens(decl, &d)) {
		size_t k = only(d, 0, d.t.size(), [&](size_t i) {
			return d.t[i].text == literal; });
		if (k != SIZE_MAX)
			edit(rl, d, k, k, false, (std::string("\"") + best + "\"").c_str());
	}
	return best;
}
