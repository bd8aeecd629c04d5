/* SPDX-License-Identifier: MIT */
/*
 * The multiverse attribute: which declarations may carry it, and its
 * arguments.
 *
 *   __attribute__((multiverse))                      switch or function
 *   __attribute__((multiverse("tracked")))           switch, unbound until
 *                                                    multiverse_bind()
 *   __attribute__((multiverse(("values", 1, 3, 5)))) switch with an explicit
 *                                                    value domain (also
 *                                                    accepted without the
 *                                                    inner parentheses)
 *   __attribute__((multiverse("inline", 24)))      function or
 *                                                    function-pointer switch
 *                                                    whose call sites are
 *                                                    padded to 24 bytes, so
 *                                                    that commit may copy a
 *                                                    variant's body into them
 *                                                    (inline.cc)
 *
 * A switch is a global variable or a struct or union member (members.cc).
 * Anything else is rejected with an error that names the declaration, so
 * that misuse never reaches the passes.
 */
#include "multiverse.h"
#include "descriptor.h"

bool mv_unit_uses_multiverse;

#define ALLOWED "the %<multiverse%> attribute is allowed only on functions, " \
	"and on global variables and structure or union members of integer, " \
	"enum or function-pointer type"

bool mv_has_attribute(const_tree decl)
{
	return DECL_P(decl) &&
	       lookup_attribute("multiverse", DECL_ATTRIBUTES(decl)) != NULL_TREE;
}

bool mv_is_function(const_tree decl)
{
	return TREE_CODE(decl) == FUNCTION_DECL && mv_has_attribute(decl);
}

static bool is_fnptr_type(const_tree type)
{
	return POINTER_TYPE_P(type) &&
	       TREE_CODE(TREE_TYPE(type)) == FUNCTION_TYPE;
}

/* sw: a global switch's VAR_DECL or a member switch's key (members.cc) */
bool mv_is_fnptr_switch(const_tree sw)
{
	return (VAR_P(sw) || TREE_CODE(sw) == COMPONENT_REF) &&
	       is_fnptr_type(TREE_TYPE(sw)) && mv_has_attribute(mv_switch_decl(sw));
}

/* The attribute's arguments, with the ("values", ...) parentheses opened:
 * the C parser hands those over as one comma expression. */
static void flatten_args(tree args, std::vector<tree> &out)
{
	for (tree a = args; a; a = TREE_CHAIN(a)) {
		tree v = TREE_VALUE(a);
		std::vector<tree> chain;
		while (v && TREE_CODE(v) == COMPOUND_EXPR) {
			chain.push_back(TREE_OPERAND(v, 1));
			v = TREE_OPERAND(v, 0);
		}
		out.push_back(v);
		out.insert(out.end(), chain.rbegin(), chain.rend());
	}
}

/* The text of an argument that is a string literal, or NULL. */
static const char *string_of(tree t)
{
	STRIP_NOPS(t);
	if (TREE_CODE(t) == ADDR_EXPR)
		t = TREE_OPERAND(t, 0);
	if (TREE_CODE(t) == ARRAY_REF)
		t = TREE_OPERAND(t, 0);
	return TREE_CODE(t) == STRING_CST ? TREE_STRING_POINTER(t) : NULL;
}

static bool is_string(tree t, const char *s)
{
	const char *text = string_of(t);
	return text && !strcmp(text, s);
}

bool mv_is_tracked(const_tree decl)
{
	tree attr = lookup_attribute("multiverse", DECL_ATTRIBUTES(decl));
	std::vector<tree> args;
	if (attr)
		flatten_args(TREE_VALUE(attr), args);
	return !args.empty() && is_string(args[0], "tracked");
}

bool mv_explicit_values(const_tree decl, std::vector<mv_value> &out)
{
	tree attr = lookup_attribute("multiverse", DECL_ATTRIBUTES(decl));
	std::vector<tree> args;
	if (attr)
		flatten_args(TREE_VALUE(attr), args);
	if (args.empty() || !is_string(args[0], "values"))
		return false;
	for (size_t i = 1; i < args.size(); i++) {
		/* check_switch_args() made sure the value fits the type */
		tree c = fold_convert(TREE_TYPE(decl), args[i]);
		out.push_back(mv_value_of(wi::to_widest(c)));
	}
	return true;
}

/* ("inline", N): the size the call sites of decl get, if the attribute
 * says; check_inline_args() made sure that N is one. */
bool mv_inline_size(const_tree decl, unsigned *size)
{
	for (tree attr = lookup_attribute("multiverse", DECL_ATTRIBUTES(decl)); attr;
	     attr = lookup_attribute("multiverse", TREE_CHAIN(attr))) {
		std::vector<tree> args;
		flatten_args(TREE_VALUE(attr), args);
		if (args.size() == 2 && is_string(args[0], "inline")) {
			tree n = args[1];
			STRIP_NOPS(n);
			*size = tree_to_uhwi(n);
			return true;
		}
	}
	return false;
}

/* ("inline", N) on a function or a function-pointer switch: true if args
 * are that and valid, after an error if they are that and invalid. */
static bool check_inline_args(tree decl, tree args, bool *bad)
{
	std::vector<tree> a;
	flatten_args(args, a);
	*bad = false;
	if (a.empty() || !is_string(a[0], "inline"))
		return false;
	location_t loc = DECL_SOURCE_LOCATION(decl);
	tree n = a.size() == 2 ? a[1] : NULL_TREE;
	if (n)
		STRIP_NOPS(n);
	if (!n || TREE_CODE(n) != INTEGER_CST || !tree_fits_uhwi_p(n) ||
	    tree_to_uhwi(n) > MV_INLINE_MAX) {
		error_at(loc, "%qD: %<multiverse(\"inline\", N)%> takes one "
			 "integer constant N from 0 to %d: the bytes of each call "
			 "site, call included (0: calls are not padded)", decl,
			 MV_INLINE_MAX);
		*bad = true;
		return false;
	}
	a[1] = n;
	return true;
}

/* Checks the arguments of a switch's attribute; false after an error. */
static bool check_switch_args(tree decl, tree args)
{
	std::vector<tree> a;
	flatten_args(args, a);
	if (a.empty())
		return true;
	location_t loc = DECL_SOURCE_LOCATION(decl);
	if (is_string(a[0], "tracked") && a.size() == 1)
		return true;
	if (is_string(a[0], "values") && !is_fnptr_type(TREE_TYPE(decl))) {
		if (a.size() < 2) {
			error_at(loc, "%qD: %<multiverse(\"values\", ...)%> needs "
				 "at least one value", decl);
			return false;
		}
		for (size_t i = 1; i < a.size(); i++) {
			tree v = a[i];
			STRIP_NOPS(v);
			if (TREE_CODE(v) != INTEGER_CST) {
				error_at(loc, "%qD: value %d of %<multiverse(\"values\", "
					 "...)%> is not an integer constant", decl,
					 (int)i);
				return false;
			}
			if (!int_fits_type_p(v, TREE_TYPE(decl))) {
				error_at(loc, "%qD: value %E does not fit the "
					 "type %qT of the switch", decl, v,
					 TREE_TYPE(decl));
				return false;
			}
		}
		return true;
	}
	/* A non-constant in ("values", ...) makes the C parser drop the
	 * string, so it lands here too. */
	rich_location rl(line_table, loc);
	const char *given = string_of(a[0]);
	const char *meant = given ? mv_fixit_attribute_string(&rl, decl, given, a.size()) : NULL;
	if (meant)
		error_at(&rl, "%qD: unknown %<multiverse%> argument %qs; did you "
			 "mean %qs?", decl, given, meant);
	else
		error_at(loc, "%qD: unknown %<multiverse%> arguments; allowed are "
			 "%<multiverse(\"tracked\")%> and "
			 "%<multiverse((\"values\", V1, V2, ...))%> with integer "
			 "constants %<V1, V2, ...%> for integer and enum switches", decl);
	return false;
}

/* The type and arguments of a switch: a global variable, or a member
 * (which names no object yet: members.cc).  False after an error. */
static bool check_switch(tree decl, tree args)
{
	location_t loc = DECL_SOURCE_LOCATION(decl);
	tree type = TREE_TYPE(decl);
	bool integral = TREE_CODE(type) == INTEGER_TYPE ||
			TREE_CODE(type) == BOOLEAN_TYPE ||
			TREE_CODE(type) == ENUMERAL_TYPE;
	if (integral) {
		unsigned bytes = tree_to_uhwi(TYPE_SIZE_UNIT(type));
		if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) {
			error_at(loc, "%qD has a %u-byte type %qT; a "
				 "multiverse switch must be 1, 2, 4 or 8 "
				 "bytes wide", decl, bytes, type);
			return false;
		}
	} else if (!is_fnptr_type(type)) {
		error_at(loc, "%qD has type %qT; " ALLOWED, decl, type);
		return false;
	}
	if (TYPE_READONLY(type)) {
		rich_location rl(line_table, loc);
		mv_fixit_remove_const(&rl, decl);
		error_at(&rl, "%qD is %<const%>; a multiverse switch must "
			 "be writable", decl);
		return false;
	}
	if (is_fnptr_type(type) && args) {
		bool bad = false;
		if (check_inline_args(decl, args, &bad))
			return true;
		if (bad)
			return false;
		rich_location rl(line_table, loc);
		mv_fixit_remove_attribute_args(&rl, decl);
		error_at(&rl, "%qD: a function-pointer switch takes no "
			 "%<multiverse%> arguments but %<(\"inline\", N)%>", decl);
		return false;
	}
	return check_switch_args(decl, args);
}

static tree handle_multiverse(tree *node, tree name, tree args, int flags,
			      bool *no_add_attrs)
{
	tree decl = *node;
	*no_add_attrs = true;

	if (!DECL_P(decl)) {
		if (TYPE_P(decl) && TYPE_NAME(decl))
			error("%qT: " ALLOWED "; it cannot apply to a type", decl);
		else
			error(ALLOWED "; it cannot apply to a type");
		return NULL_TREE;
	}
	location_t loc = DECL_SOURCE_LOCATION(decl);

	/* The descriptors and the runtime are LP64 only, but an x86-64 GCC
	 * also compiles for -m32 and -mx32, and AArch64's for -mabi=ilp32:
	 * one error per unit, then no attribute, so no code that the
	 * assembler would refuse with less clear words. */
	if (POINTER_SIZE != 64) {
		static bool told;
		if (!told)
			error_at(loc, "%qD: multiverse supports only 64-bit targets "
				 "(x86-64 and AArch64, LP64), not this one with "
				 "%d-bit pointers (%<-m32%>, %<-mx32%> or "
				 "%<-mabi=ilp32%>)", decl, (int)POINTER_SIZE);
		told = true;
		return NULL_TREE;
	}

	switch (TREE_CODE(decl)) {
	case FUNCTION_DECL: {
		bool bad = false;
		if (args && !check_inline_args(decl, args, &bad)) {
			if (bad)
				return NULL_TREE;
			rich_location rl(line_table, loc);
			mv_fixit_remove_attribute_args(&rl, decl);
			error_at(&rl, "%qD: the %<multiverse%> attribute takes no "
				 "arguments on a function but %<(\"inline\", N)%>",
				 decl);
			return NULL_TREE;
		}
		/* Callers must rely on nothing but the ABI: commit redirects
		 * the generic, so no IPA facts about it may leak into them.
		 * noinline follows with the definition (mv_check_definition). */
		DECL_UNINLINABLE(decl) = 1;
		if (!lookup_attribute("noipa", DECL_ATTRIBUTES(decl)))
			DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("noipa"),
				NULL_TREE, DECL_ATTRIBUTES(decl));
		break;
	}
	case VAR_DECL:
		/* DECL_CONTEXT is not set yet while the attribute is handled */
		if (current_function_decl && !DECL_EXTERNAL(decl)) {
			error_at(loc, "%qD is a local variable; " ALLOWED, decl);
			return NULL_TREE;
		}
		if (DECL_THREAD_LOCAL_P(decl)) {
			rich_location rl(line_table, loc);
			mv_fixit_remove_thread_local(&rl, decl);
			error_at(&rl, "%qD is thread-local; " ALLOWED, decl);
			return NULL_TREE;
		}
		if (!check_switch(decl, args))
			return NULL_TREE;
		/* The descriptors refer to the switch and the runtime reads it,
		 * neither of which GCC sees.  Without this, a static switch
		 * whose every read is optimized away has its stores deleted as
		 * write-only and is not emitted, leaving the descriptors an
		 * undefined symbol.  (Public ones are visible anyway.) */
		if (TREE_STATIC(decl)) {
			DECL_PRESERVE_P(decl) = 1;
			TREE_USED(decl) = 1;
		}
		break;
	case FIELD_DECL:
		/* a switch in every object of the type with static storage
		 * duration (members.cc) */
		if (!check_switch(decl, args))
			return NULL_TREE;
		break;
	case PARM_DECL:
		error_at(loc, "%qD is a function parameter; " ALLOWED, decl);
		return NULL_TREE;
	default:
		error_at(loc, "%qD: " ALLOWED, decl);
		return NULL_TREE;
	}
	mv_unit_uses_multiverse = true;
	*no_add_attrs = false;
	return NULL_TREE;
}

/* Runs when a function definition is parsed, with the attributes of all
 * its declarations merged, so the order of declarations does not matter. */
void mv_check_definition(void *gcc_data, void *)
{
	tree decl = (tree)gcc_data;
	if (!mv_is_function(decl))
		return;
	/* The noinline attribute (not just DECL_UNINLINABLE, which GCC 12's
	 * IPA mod/ref analysis does not expect alone on these functions) is
	 * added only now, after the front end's check that would warn about
	 * every `inline` variation point. */
	DECL_UNINLINABLE(decl) = 1;
	if (!lookup_attribute("noinline", DECL_ATTRIBUTES(decl)))
		DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("noinline"),
						  NULL_TREE, DECL_ATTRIBUTES(decl));
	if (lookup_attribute("always_inline", DECL_ATTRIBUTES(decl))) {
		rich_location rl(line_table, DECL_SOURCE_LOCATION(decl));
		mv_fixit_remove_always_inline(&rl, decl);
		error_at(&rl, "%qD is %<always_inline%>; a multiversed function is "
			 "never inlined, so that commit can redirect every call "
			 "to it", decl);
	}
}

static struct attribute_spec multiverse_attr = {
	"multiverse", 0, -1, false, false, false, false, handle_multiverse, NULL
};

void mv_register_attribute(void *, void *)
{
	register_attribute(&multiverse_attr);
}
