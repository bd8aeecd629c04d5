/* SPDX-License-Identifier: MIT */
/*
 * Struct and union members as switches.
 *
 *   struct config {
 *       __attribute__((multiverse)) bool smp;
 *       __attribute__((multiverse("tracked"))) int level;
 *   };
 *   struct config cfg, cfgs[2];
 *
 * The attribute on a member makes that member a switch in every object of
 * the type with static storage duration, also where the type is nested in
 * another or is an array's element: cfg.smp, cfg.level, cfgs[0].smp, ...
 * Each is a switch of its own, with the member's type and attribute
 * arguments, and is described by its address (&cfg.level), as a global
 * switch is, so the runtime needs nothing new.
 *
 * A read is a switch read when it names the object directly, with constant
 * array indices: it has one address.  Reads through a pointer, or at an
 * index known only at run time, are left as they are (the multiversed
 * function's caller is told, in specialize.cc).
 *
 * In GIMPLE a switch is a tree: the VAR_DECL of a global switch, or, for a
 * member, the first reference to it that the unit met, kept as the key of
 * that (object, offset) so that every later reference maps to the same
 * tree.  The side table here knows each key's object, offset and name.
 */
#include "multiverse.h"

#include <map>

namespace {

struct member_switch {
	tree object;            /* the VAR_DECL */
	HOST_WIDE_INT offset;   /* bytes from the object's start */
	tree field;             /* the FIELD_DECL with the attribute */
	std::string name;       /* cfgs[1].level */
};

std::map<std::pair<unsigned, HOST_WIDE_INT>, tree> keys;  /* (uid, offset) */
std::map<tree, member_switch> members;                   /* key -> member */
std::map<const_tree, bool> types_with_switches;

bool is_record(const_tree type)
{
	return TREE_CODE(type) == RECORD_TYPE || TREE_CODE(type) == UNION_TYPE ||
	       TREE_CODE(type) == QUAL_UNION_TYPE;
}

/* Calls fn(offset, field, name) for every member switch in an object of
 * the given type that starts at offset and is called name. */
template <typename F>
void for_each_member(const_tree type, HOST_WIDE_INT offset,
		     const std::string &name, F &fn)
{
	type = TYPE_MAIN_VARIANT(type);
	if (TREE_CODE(type) == ARRAY_TYPE) {
		tree elt = TREE_TYPE(type), dom = TYPE_DOMAIN(type);
		if (!mv_type_has_switches(elt) || !dom || !TYPE_MAX_VALUE(dom) ||
		    !tree_fits_shwi_p(TYPE_MAX_VALUE(dom)) ||
		    !tree_fits_shwi_p(TYPE_MIN_VALUE(dom)) ||
		    !tree_fits_uhwi_p(TYPE_SIZE_UNIT(elt)))
			return;
		HOST_WIDE_INT lo = tree_to_shwi(TYPE_MIN_VALUE(dom));
		HOST_WIDE_INT hi = tree_to_shwi(TYPE_MAX_VALUE(dom));
		HOST_WIDE_INT size = tree_to_uhwi(TYPE_SIZE_UNIT(elt));
		for (HOST_WIDE_INT i = lo; i <= hi; i++)
			for_each_member(elt, offset + (i - lo) * size,
					name + "[" + std::to_string(i) + "]", fn);
		return;
	}
	if (!is_record(type) || !COMPLETE_TYPE_P(type))
		return;
	for (tree f = TYPE_FIELDS(type); f; f = DECL_CHAIN(f)) {
		if (TREE_CODE(f) != FIELD_DECL || !tree_fits_shwi_p(byte_position(f)))
			continue;
		HOST_WIDE_INT at = offset + int_byte_position(f);
		std::string n = DECL_NAME(f) ? name + "." +
			IDENTIFIER_POINTER(DECL_NAME(f)) : name;
		if (mv_has_attribute(f))
			fn(at, f, n);
		else
			for_each_member(TREE_TYPE(f), at, n, fn);
	}
}

/* The name of a reference in source form (cfgs[1].level), or "" when
 * it has another form. */
std::string name_of_ref(const_tree ref)
{
	switch (TREE_CODE(ref)) {
	case VAR_DECL:
		return mv_name(ref);
	case COMPONENT_REF: {
		std::string base = name_of_ref(TREE_OPERAND(ref, 0));
		tree f = TREE_OPERAND(ref, 1);
		if (base.empty() || !DECL_NAME(f))
			return base;
		return base + "." + IDENTIFIER_POINTER(DECL_NAME(f));
	}
	case ARRAY_REF: {
		std::string base = name_of_ref(TREE_OPERAND(ref, 0));
		tree i = TREE_OPERAND(ref, 1);
		if (base.empty() || !tree_fits_shwi_p(i))
			return "";
		return base + "[" + std::to_string(tree_to_shwi(i)) + "]";
	}
	default:
		return "";
	}
}

/* The key of the member switch at offset in object, made from ref (or
 * built) when it is the first reference to it. */
tree key_of(tree object, HOST_WIDE_INT offset, tree field, tree ref,
	    const std::string &known_name)
{
	auto k = std::make_pair(DECL_UID(object), offset);
	auto it = keys.find(k);
	if (it != keys.end())
		return it->second;
	std::string name = ref ? name_of_ref(ref) : known_name;
	if (name.empty())
		name = std::string(mv_name(object)) + "+" + std::to_string(offset);
	tree key = ref ? unshare_expr(ref)
		       : build3(COMPONENT_REF, TREE_TYPE(field), object, field,
				NULL_TREE);
	mv_keep(key);
	keys[k] = key;
	members[key] = { object, offset, field, name };
	return key;
}

} // namespace

bool mv_type_has_switches(const_tree type)
{
	type = TYPE_MAIN_VARIANT(type);
	while (TREE_CODE(type) == ARRAY_TYPE)
		type = TYPE_MAIN_VARIANT(TREE_TYPE(type));
	if (!is_record(type) || !COMPLETE_TYPE_P(type))
		return false;
	auto it = types_with_switches.find(type);
	if (it != types_with_switches.end())
		return it->second;
	bool has = false;
	for (tree f = TYPE_FIELDS(type); f && !has; f = DECL_CHAIN(f))
		if (TREE_CODE(f) == FIELD_DECL)
			has = mv_has_attribute(f) || mv_type_has_switches(TREE_TYPE(f));
	types_with_switches[type] = has;
	return has;
}

bool mv_is_switch_object(const_tree decl)
{
	return VAR_P(decl) && (TREE_STATIC(decl) || DECL_EXTERNAL(decl)) &&
	       !DECL_THREAD_LOCAL_P(decl) && mv_type_has_switches(TREE_TYPE(decl));
}

tree mv_switch_of(tree ref)
{
	if (VAR_P(ref))
		return mv_has_attribute(ref) ? ref : NULL_TREE;
	if (TREE_CODE(ref) != COMPONENT_REF ||
	    !mv_has_attribute(TREE_OPERAND(ref, 1)))
		return NULL_TREE;
	HOST_WIDE_INT bits, size;
	bool reverse;
	tree base = get_ref_base_and_extent_hwi(ref, &bits, &size, &reverse);
	if (!base || !mv_is_switch_object(base) || bits % BITS_PER_UNIT)
		return NULL_TREE;
	return key_of(base, bits / BITS_PER_UNIT, TREE_OPERAND(ref, 1), ref, "");
}

/* An _Atomic switch is read by __atomic_load_N (&sw, order), N its size. */
static tree atomic_load_of(gimple *s)
{
	tree fn = gimple_call_fndecl(s), addr, sw;
	unsigned size;

	if (!fn || !fndecl_built_in_p(fn, BUILT_IN_NORMAL) || !gimple_call_lhs(s) ||
	    gimple_call_num_args(s) != 2)
		return NULL_TREE;
	switch (DECL_FUNCTION_CODE(fn)) {
	case BUILT_IN_ATOMIC_LOAD_1: size = 1; break;
	case BUILT_IN_ATOMIC_LOAD_2: size = 2; break;
	case BUILT_IN_ATOMIC_LOAD_4: size = 4; break;
	case BUILT_IN_ATOMIC_LOAD_8: size = 8; break;
	default: return NULL_TREE;
	}
	/* atomic_load_explicit() goes through a pointer variable */
	addr = gimple_call_arg(s, 0);
	if (TREE_CODE(addr) == SSA_NAME && gimple_assign_single_p(SSA_NAME_DEF_STMT(addr)))
		addr = gimple_assign_rhs1(SSA_NAME_DEF_STMT(addr));
	if (TREE_CODE(addr) != ADDR_EXPR || !(sw = mv_switch_of(TREE_OPERAND(addr, 0))) ||
	    !tree_fits_uhwi_p(TYPE_SIZE_UNIT(TREE_TYPE(sw))) ||
	    tree_to_uhwi(TYPE_SIZE_UNIT(TREE_TYPE(sw))) != size)
		return NULL_TREE;
	return sw;
}

/* Whether s is a call of a builtin of the __atomic_ or __sync_ family. */
bool mv_atomic_builtin(gimple *s)
{
	tree fn = is_gimple_call(s) ? gimple_call_fndecl(s) : NULL_TREE;
	const char *name;

	if (!fn || !fndecl_built_in_p(fn, BUILT_IN_NORMAL) || !DECL_NAME(fn))
		return false;
	name = IDENTIFIER_POINTER(DECL_NAME(fn));
	return !strncmp(name, "__atomic_", 9) || !strncmp(name, "__sync_", 7);
}

enum mv_atomic_use mv_atomic_uses(gimple *s)
{
	enum mv_atomic_use how = MV_ATOMIC_NONE;
	use_operand_p use;
	imm_use_iterator it;
	tree name = gimple_get_lhs(s);

	if (!name || TREE_CODE(name) != SSA_NAME || !gimple_assign_single_p(s) ||
	    TREE_CODE(gimple_assign_rhs1(s)) != ADDR_EXPR)
		return MV_ATOMIC_NONE;
	FOR_EACH_IMM_USE_FAST(use, it, name) {
		gimple *u = USE_STMT(use);
		if (is_gimple_debug(u))
			continue;
		if (mv_switch_loaded(u)) {
			how = how == MV_ATOMIC_NONE ? MV_ATOMIC_LOADS : how;
			continue;
		}
		if (!mv_atomic_builtin(u) || gimple_call_arg(u, 0) != name)
			return MV_ATOMIC_NONE;
		how = MV_ATOMIC_WRITES;
	}
	return how;
}

/* -fsanitize=bool and =enum check a load of a _Bool or enum as an integer
 * of its size, through its address: p = &sw; v = MEM[(T *)p]; if (v > 1)
 * report; that is a read of sw. */
static tree integer_load_of(tree rhs)
{
	tree p = TREE_OPERAND(rhs, 0), addr, sw;

	if (TREE_CODE(rhs) != MEM_REF || !integer_zerop(TREE_OPERAND(rhs, 1)) ||
	    TREE_CODE(p) != SSA_NAME || !gimple_assign_single_p(SSA_NAME_DEF_STMT(p)))
		return NULL_TREE;
	addr = gimple_assign_rhs1(SSA_NAME_DEF_STMT(p));
	/* a volatile read of a switch that is not volatile asks for the
	 * memory each time: that is no read a variant may fold */
	if (TREE_CODE(addr) != ADDR_EXPR || !(sw = mv_switch_of(TREE_OPERAND(addr, 0))) ||
	    (TREE_THIS_VOLATILE(rhs) && !TREE_THIS_VOLATILE(sw)) ||
	    !INTEGRAL_TYPE_P(TREE_TYPE(rhs)) ||
	    !tree_int_cst_equal(TYPE_SIZE(TREE_TYPE(rhs)), TYPE_SIZE(TREE_TYPE(sw))))
		return NULL_TREE;
	return sw;
}

tree mv_switch_loaded(gimple *s)
{
	if (gimple_assign_single_p(s)) {
		tree rhs = gimple_assign_rhs1(s);
		return TREE_CODE(rhs) == MEM_REF ? integer_load_of(rhs) : mv_switch_of(rhs);
	}
	return is_gimple_call(s) ? atomic_load_of(s) : NULL_TREE;
}

tree mv_switch_decl(const_tree key)
{
	auto it = members.find(const_cast<tree>(key));
	return it == members.end() ? const_cast<tree>(key) : it->second.field;
}

tree mv_switch_object(const_tree key, HOST_WIDE_INT *offset)
{
	auto it = members.find(const_cast<tree>(key));
	*offset = it == members.end() ? 0 : it->second.offset;
	return it == members.end() ? const_cast<tree>(key) : it->second.object;
}

const char *mv_switch_name(const_tree key)
{
	auto it = members.find(const_cast<tree>(key));
	return it == members.end() ? mv_name(key) : it->second.name.c_str();
}

void mv_member_switches(tree object, std::vector<tree> &out)
{
	auto add = [&](HOST_WIDE_INT at, tree field, const std::string &name) {
		out.push_back(key_of(object, at, field, NULL_TREE, name));
	};
	for_each_member(TREE_TYPE(object), 0, mv_name(object), add);
}

/*
 * At the end of a struct or union definition: a member switch must be
 * one the runtime can read and patch for, at an address of its own.
 */
void mv_check_type(void *gcc_data, void *)
{
	tree type = (tree)gcc_data;
	if (!type || !TYPE_P(type) || !is_record(type) || !COMPLETE_TYPE_P(type))
		return;
	tree first = NULL_TREE;
	for (tree f = TYPE_FIELDS(type); f; f = DECL_CHAIN(f)) {
		if (TREE_CODE(f) != FIELD_DECL)
			continue;
		location_t loc = DECL_SOURCE_LOCATION(f);
		bool refused = true;
		if (!mv_has_attribute(f))
			refused = false;
		else if (DECL_BIT_FIELD_TYPE(f))
			error_at(loc, "%qD is a bit-field; a multiverse switch "
				 "member must be a whole integer, enum or %<bool%> "
				 "member, with an address of its own", f);
		else if (POINTER_TYPE_P(TREE_TYPE(f)) &&
			 DECL_ALIGN(f) < TYPE_ALIGN(TREE_TYPE(f)))
			error_at(loc, "%qD is a packed function-pointer member; a "
				 "multiverse function-pointer switch must be "
				 "aligned to its size", f);
		else
			refused = false;
		if (refused) {
			DECL_ATTRIBUTES(f) = remove_attribute("multiverse",
				DECL_ATTRIBUTES(f));
			continue;
		}
		if (TREE_CODE(type) != UNION_TYPE ||
		    !(mv_has_attribute(f) || mv_type_has_switches(TREE_TYPE(f))))
			continue;
		if (!first) {
			first = f;
			continue;
		}
		auto_diagnostic_group g;
		error_at(loc, "%qD and %qD share their storage in union %qT, and "
			 "both are or hold multiverse switches; a union may have "
			 "switches in one of its members only", first, f, type);
		inform(DECL_SOURCE_LOCATION(first), "%qD declared here", first);
	}
}

/* Objects holding switches are referred to by descriptors GCC does not
 * see: keep them, as attribute.cc keeps global switches. */
void mv_keep_switch_objects(void *gcc_data, void *)
{
	tree decl = (tree)gcc_data;
	if (decl && VAR_P(decl) && TREE_STATIC(decl) &&
	    mv_is_switch_object(decl)) {
		DECL_PRESERVE_P(decl) = 1;
		TREE_USED(decl) = 1;
	}
}
