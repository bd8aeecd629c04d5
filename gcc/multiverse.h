/* SPDX-License-Identifier: MIT */
/*
 * State and interfaces shared by the plugin's passes.  One translation unit
 * is compiled per plugin instance, so the state is plain globals that live
 * for the unit.
 */
#ifndef MULTIVERSE_PLUGIN_H
#define MULTIVERSE_PLUGIN_H

#include "gcc-compat.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

/* A value of a switch's type, as the descriptors carry it (see
 * docs/descriptor-format.md): its low 64 bits, so zero-extended for an
 * unsigned type and sign-extended for a signed one.  Each value has one
 * such form; the switch's type says how to order them (mv_value_less). */
typedef int64_t mv_value;

/* low <= var <= high; var == NULL_TREE marks nothing. */
struct mv_range {
	tree var;
	mv_value low, high;
};

/* A conjunction of ranges: the guard of one variant record. */
typedef std::vector<mv_range> mv_clause;

struct mv_variant {
	tree decl;                        /* the specialized clone */
	std::vector<mv_clause> clauses;   /* valid when any clause holds */
};

struct mv_function {
	tree decl;                        /* the generic */
	unsigned entry_label;             /* 0 until the entry NOP is planted */
	bool entry_after_pad;             /* after endbr64, bti c or a NOP */
	bool entry_after_pad_nop;         /* after bti c and a NOP */
	std::vector<mv_variant> variants;
	/* for the report (report.cc) */
	std::vector<std::string> specialized;                 /* switch names */
	std::vector<std::string> domains;     /* each one's, as JSON (report.cc) */
	std::vector<std::pair<std::string, std::string>> dynamic; /* name, why */
	std::string generic_only;         /* why no variant was made, if so */
	unsigned made;                    /* variants made, before merging */
};

struct mv_site {
	unsigned label;
	unsigned call_len;                /* bytes of the call instruction */
	bool tail;                        /* a tail call */
	unsigned pad;                     /* bytes of NOPs before the call,
					     chosen at the unit's end */
	tree callee;                      /* FUNCTION_DECL or fn-pointer switch */
	tree in;                          /* the function the call is in */
	bool in_probe_variant;            /* MV_SITE_IN_PROBE_VARIANT */
};

/* fixit.cc: the edits that fix declaration decl, added to a diagnostic
 * at its name where the source text shows them unambiguously */
void mv_fixit_remove_const(rich_location *rl, tree decl);
void mv_fixit_remove_thread_local(rich_location *rl, tree decl);
void mv_fixit_remove_attribute_args(rich_location *rl, tree decl);
void mv_fixit_remove_always_inline(rich_location *rl, tree decl);
const char *mv_fixit_attribute_string(rich_location *rl, tree decl,
				      const char *given, unsigned n_args);

/* specialize.cc: the note at a switch's declaration (sw: a global
 * switch's VAR_DECL or a member switch's key) */
void mv_note_switch_declared(tree sw);

/* probes.cc: a function-pointer switch compared with NULL (a probe) */
enum mv_probe_use {
	MV_PROBE_NONE,          /* not compared with NULL */
	MV_PROBE_TESTED,        /* a probe: only compared and called */
	MV_PROBE_UNTRACED,      /* compared, but its value also goes elsewhere */
};
enum mv_probe_use mv_probe_use(tree sw, function *fn);
/* Replaces the comparisons by what they give when the switch is set (not
 * NULL) or not; its loads stay.  A variant for "set" is noted in
 * mv_probe_set_in, with the switches it assumes set: its calls through
 * them must all become sites (mv_probe_call_unseen). */
void mv_probe_fold(tree decl, tree sw, bool set);
extern std::map<tree, std::vector<tree>> mv_probe_set_in;

/* attribute.cc */
void mv_register_attribute(void *, void *);
void mv_check_definition(void *fndecl, void *);
bool mv_has_attribute(const_tree decl);
bool mv_is_function(const_tree decl);
bool mv_is_fnptr_switch(const_tree sw);
bool mv_is_tracked(const_tree decl);
bool mv_explicit_values(const_tree decl, std::vector<mv_value> &out);
extern bool mv_unit_uses_multiverse;

/* members.cc: a switch is a tree, the VAR_DECL of a global switch or the
 * key of a member switch; these see through either. */
bool mv_type_has_switches(const_tree type);
bool mv_is_switch_object(const_tree decl);
tree mv_switch_of(tree ref);
/* The switch statement s loads whole into its lhs: lhs = sw, or
 * lhs = __atomic_load_N (&sw, order) for an _Atomic switch; or NULL_TREE */
tree mv_switch_loaded(gimple *s);
/* For s, name = &x: whether name is used by such loads only, by atomic
 * builtins (some of which write), or otherwise too (or s is not that) */
enum mv_atomic_use { MV_ATOMIC_NONE, MV_ATOMIC_LOADS, MV_ATOMIC_WRITES };
enum mv_atomic_use mv_atomic_uses(gimple *s);
bool mv_atomic_builtin(gimple *s);    /* __atomic_* or __sync_* */
tree mv_switch_decl(const_tree sw);           /* carries the attribute */
tree mv_switch_object(const_tree sw, HOST_WIDE_INT *offset);
const char *mv_switch_name(const_tree sw);
void mv_member_switches(tree object, std::vector<tree> &out);
void mv_check_type(void *type, void *);
void mv_keep_switch_objects(void *decl, void *);

/* anchors.cc */
void mv_keep_switches_unanchored(void);

/* domain.cc */
mv_value mv_value_of(const widest_int &v);
bool mv_value_less(const_tree var, mv_value a, mv_value b);
std::vector<mv_value> mv_domain(tree var, function *fn);

/* specialize.cc, merge.cc, sites.cc (and arch.h) */
opt_pass *mv_make_specialize_pass(gcc::context *ctxt);
opt_pass *mv_make_merge_pass(gcc::context *ctxt);
opt_pass *mv_make_fnptr_call_pass(gcc::context *ctxt);
opt_pass *mv_make_sites_pass(gcc::context *ctxt);

/* inline.cc: which variants the runtime may copy into a call site
 * (labels in the variant's code for the descriptor), and how large the
 * call sites get */
struct mv_arch_reloc;
struct mv_inline_reloc {
	std::string label;
	unsigned kind;                    /* MV_RELOC_* */
	int field;                        /* the field's offset from the label */
};
struct mv_inline_info {
	unsigned why = 0;                 /* MV_INLINE_*; 0: not analysed */
	std::string start, end;           /* labels around the bytes to copy */
	unsigned size = 0;                /* their estimated length */
	std::vector<mv_inline_reloc> relocs;
};
extern std::map<const_tree, mv_inline_info> mv_inlinable;  /* by variant,
						      or plain generic */
extern unsigned mv_default_inline_size;   /* inline-size=N */
bool mv_inline_size(const_tree decl, unsigned *size);      /* attribute.cc */
bool mv_is_variant(const_tree decl);
bool mv_is_plain(const mv_function &f);
unsigned mv_site_size(tree callee);
/* The same, and whether it is final already (every variant analysed) */
bool mv_site_size_known(tree callee, unsigned *size);
const char *mv_inline_why(unsigned why);
bool mv_is_padding(const char *asm_text);
void mv_choose_padding(void);
opt_pass *mv_make_inline_pass(gcc::context *ctxt);

/* report.cc: -fplugin-arg-multiverse-report[-json][=FILE] */
extern const char *mv_report_file;    /* "" for stderr; NULL: no report */
extern bool mv_report_json;
extern std::map<const_tree, unsigned> mv_code_bytes;   /* sites.cc fills it */
void mv_write_report(void);
opt_pass *mv_make_measure_pass(gcc::context *ctxt);

/* descriptors.cc */
void mv_build_module_ctor(void);
void mv_emit_descriptors(void *, void *);

/* multiverse.cc: the unit's records and options */
extern std::vector<mv_function> mv_functions;
extern std::vector<mv_site> mv_sites;
extern unsigned mv_max_variants;
extern bool mv_optional_runtime;
extern bool mv_kernel;
mv_function *mv_find_function(const_tree decl);
void mv_keep(tree t);   /* keep t alive across garbage collection */
const char *mv_name(const_tree decl);

#endif
