/* SPDX-License-Identifier: MIT */
/*
 * Multiverse GCC plugin: compiles one specialized variant of each function
 * marked __attribute__((multiverse)) per combination of the values of the
 * multiverse switches it reads, and records the descriptors the runtime
 * library needs to bind the switches by binary patching.
 *
 * Usage:
 *   gcc -fplugin=multiverse.so [-fplugin-arg-multiverse-max-variants=N] ...
 * or the multiverse-gcc wrapper, which also adds the header and runtime.
 *
 * It predefines __MULTIVERSE__ (1) and __MULTIVERSE_VERSION__
 * (common/multiverse-version.h).
 *
 * Options:
 *   max-variants=N   per-function cap on variants (default 64); a function
 *                    that would need more gets a warning and only its
 *                    generic.
 *   optional-runtime the module registers with the runtime only if one is
 *                    linked in: its references to the runtime are weak, so
 *                    a library links with -nostdlib and -Wl,--no-undefined
 *                    and, in a process without the runtime, runs its
 *                    generics (docs/design.md, "Optional runtime").
 *   kernel           code for the Linux kernel or one of its modules
 *                    (CONFIG_MULTIVERSE, docs/kernel.md): no constructor
 *                    registers the unit, since the kernel finds the
 *                    descriptor sections itself, and every call site is
 *                    a form the kernel's text patching can rewrite.
 *   report[=FILE]    a report of what each multiversed function got:
 *                    switches, variants made and merged, switches left
 *                    dynamic and why, bytes added; on stderr, or appended
 *                    to FILE (report.cc).  report-json[=FILE]: the same as
 *                    JSON, one object per line.
 *   version          prints the plugin's version, and the GCC it was built
 *                    for, on stderr (also shown by gcc -v --version).
 *
 * Example:
 *   __attribute__((multiverse)) int config_smp;
 *   __attribute__((multiverse)) void spin_irq_lock(spinlock_t *l)
 *   {
 *       if (config_smp) ...
 *   }
 *
 * The passes, in pipeline order:
 *   specialize.cc  after SSA is built, before any optimization: clone each
 *                  multiversed function per assignment and turn switch
 *                  reads into constants;
 *   merge.cc       after the early optimizations: drop variants whose
 *                  bodies became identical and widen the survivor's guard;
 *   arch/<arch>.cc after expand: make calls through fn-pointer switches
 *                  patchable (and the other architecture hooks, arch.h);
 *   sites.cc       before branch shortening: plant the generic's entry
 *                  NOP and label every call site;
 *   descriptors.cc at the end of the unit: emit the descriptor sections
 *                  (format in common/descriptor.h); at IPA time, the
 *                  constructor and destructor that register the module.
 * And one target hook: anchors.cc keeps switches out of section-anchor
 * blocks, so that they do not change how their neighbours are addressed.
 * members.cc makes struct and union members switches (the attribute on
 * a member; checked when the type is complete).
 */
#include "multiverse.h"
#include "descriptor.h"

#include "spellcheck.h"
#include "arch.h"
#include "plugin-version.h"
#include "cpplib.h"
#include "multiverse-version.h"

#include <cstdlib>
#include <cstring>

int plugin_is_GPL_compatible;

std::vector<mv_function> mv_functions;
std::vector<mv_site> mv_sites;
unsigned mv_max_variants = 64;
bool mv_optional_runtime;
bool mv_kernel;

/* Trees we hold between passes; registered as a GC root below. */
static tree mv_kept;

static const struct ggc_root_tab mv_roots[] = {
	{ &mv_kept, 1, sizeof(mv_kept), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

void mv_keep(tree t)
{
	mv_kept = tree_cons(NULL_TREE, t, mv_kept);
}

mv_function *mv_find_function(const_tree decl)
{
	for (mv_function &f : mv_functions)
		if (f.decl == decl)
			return &f;
	return NULL;
}

/* The name users see: in C++ qualified, and a function's with its
 * parameter types, which tell overloads apart (ns::f(int)); kept as an
 * identifier, since the front end reuses its buffers. */
const char *mv_name(const_tree decl)
{
	tree d = const_cast<tree>(decl);
	std::string name = lang_hooks.decl_printable_name(d, 1);
	if (TREE_CODE(decl) == FUNCTION_DECL) {
		/* "virtual int ns::f(int)": from the qualified name that
		 * opens the parameter list on (the return type may hold the
		 * name too: "int n(int)") */
		std::string full = lang_hooks.decl_printable_name(d, 2);
		size_t from = full.find(name + "(");
		if (from != std::string::npos)
			name = full.substr(from);
	}
	return IDENTIFIER_POINTER(get_identifier(name.c_str()));
}

static void register_pass(struct plugin_name_args *info, opt_pass *pass,
			  const char *ref, enum pass_positioning_ops pos)
{
	struct register_pass_info rp;
	rp.pass = pass;
	rp.reference_pass_name = ref;
	rp.ref_pass_instance_number = 1;
	rp.pos_op = pos;
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &rp);
}

static bool parse_args(struct plugin_name_args *info)
{
	for (int i = 0; i < info->argc; i++) {
		const char *key = info->argv[i].key, *val = info->argv[i].value;
		if (!strcmp(key, "max-variants") && val) {
			char *end;
			long n = strtol(val, &end, 10);
			if (*end || n < 1 || n > 100000) {
				error("multiverse: %<max-variants%> takes a number "
				      "from 1 to 100000, not %qs", val);
				return false;
			}
			mv_max_variants = n;
		} else if (!strcmp(key, "inline-size") && val) {
			char *end;
			long n = strtol(val, &end, 10);
			if (*end || n < 0 || n > MV_INLINE_MAX) {
				error("multiverse: %<inline-size%> takes a number of "
				      "bytes from 0 to %d, not %qs", MV_INLINE_MAX, val);
				return false;
			}
			mv_default_inline_size = n;
		} else if (!strcmp(key, "report") || !strcmp(key, "report-json")) {
			mv_report_file = val ? xstrdup(val) : "";
			mv_report_json = !strcmp(key, "report-json");
			if (val && !*val) {
				error("multiverse: %<%s=%> needs a file name", key);
				return false;
			}
		} else if (!strcmp(key, "version") && !val) {
			fprintf(stderr, "multiverse %s (GCC plugin, built for GCC %s)\n",
				MV_VERSION_STRING, gcc_version.basever);
		} else if (!strcmp(key, "kernel") || !strcmp(key, "optional-runtime")) {
			if (val) {
				error("multiverse: %qs takes no value, not %qs", key, val);
				return false;
			}
			*(!strcmp(key, "kernel") ? &mv_kernel : &mv_optional_runtime) = true;
		} else {
			auto_vec<const char *> known;
			for (const char *k : { "inline-size", "kernel", "max-variants", "optional-runtime",
					       "report", "report-json", "version" })
				known.safe_push(k);
			const char *meant = find_closest_string(key, &known);
			const char *given = info->argv[i].value ?
				concat(key, "=", info->argv[i].value, NULL) : key;
#define ARGS "the arguments are %<inline-size=N%>, %<kernel%>, %<max-variants=N%>, %<optional-runtime%>, " \
	"%<report[=FILE]%>, %<report-json[=FILE]%> and %<version%>"
			if (meant && strcmp(meant, key))
				error("multiverse: unknown plugin argument %qs; did "
				      "you mean %qs? " ARGS, given, meant);
			else
				error("multiverse: unknown plugin argument %qs; " ARGS,
				      given);
#undef ARGS
			return false;
		}
	}
	return true;
}

/* The macros that tell a source the plugin is there (include/multiverse.h).
 * PLUGIN_PRAGMAS comes before GCC defines its own macros and the command
 * line's, also when only preprocessing (-E), so -U still takes them away. */
extern cpp_reader *parse_in;        /* c-family/c-common.h, which must come first */

static void define_macros(void *, void *)
{
	/* Without the callback that -g3 installs to record each definition
	 * in the debug information: it needs a source location, which does
	 * not exist yet. */
	cpp_callbacks *cb = cpp_get_callbacks(parse_in);
	auto record = cb->define;
	cb->define = NULL;
	cpp_define(parse_in, "__MULTIVERSE__=1");
	std::string version = "__MULTIVERSE_VERSION__=" + std::to_string(MV_VERSION_NUMBER);
	cpp_define(parse_in, version.c_str());
	cb->define = record;
}

static void check_unit(void *, void *)
{
	if (flag_lto)
		error("multiverse: %<-flto%> is not supported: the plugin runs "
		      "only at compile time and link-time optimization would "
		      "compile code without it; build without %<-flto%>");
}

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *ver)
{
	if (!plugin_default_version_check(ver, &gcc_version)) {
		/* A point release keeps the version and changes the build
		 * date, so both are told, and how the two builds differ. */
		const char *how = strcmp(ver->basever, gcc_version.basever) ? "another version" :
				  strcmp(ver->datestamp, gcc_version.datestamp) ? "another build of it" :
				  "the same version, configured otherwise";
		error("multiverse: this plugin was built for GCC %s (%s) and this "
		      "compiler is %s, GCC %s (%s); rebuild and reinstall "
		      "Multiverse with this compiler (%<make && make install%> in its "
		      "source tree), or install the Multiverse package built for it",
		      gcc_version.basever, gcc_version.datestamp, how,
		      ver->basever, ver->datestamp);
		return 1;
	}
	if (!parse_args(info))
		return 1;

	static struct plugin_info about = {
		MV_VERSION_STRING,
		"Multiverse: functions specialized on the values of switches.  "
		"Arguments: inline-size=N (0 to 64 bytes, default 0), kernel, "
		"max-variants=N (1 to 100000, default 64), "
		"optional-runtime, report[=FILE], report-json[=FILE], version",
	};
	register_callback(info->base_name, PLUGIN_INFO, NULL, &about);

	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)mv_roots);
	register_callback(info->base_name, PLUGIN_ATTRIBUTES,
			  mv_register_attribute, NULL);
	register_callback(info->base_name, PLUGIN_PRAGMAS, define_macros, NULL);
	register_callback(info->base_name, PLUGIN_START_UNIT, check_unit, NULL);
	mv_keep_switches_unanchored();
	register_callback(info->base_name, PLUGIN_FINISH_PARSE_FUNCTION,
			  mv_check_definition, NULL);
	register_callback(info->base_name, PLUGIN_FINISH_TYPE, mv_check_type,
			  NULL);
	register_callback(info->base_name, PLUGIN_FINISH_DECL,
			  mv_keep_switch_objects, NULL);

	register_pass(info, mv_make_specialize_pass(g), "build_ssa_passes",
		      PASS_POS_INSERT_AFTER);
	register_pass(info, mv_make_merge_pass(g), "opt_local_passes",
		      PASS_POS_INSERT_AFTER);
	register_pass(info, mv_make_fnptr_call_pass(g), "expand",
		      PASS_POS_INSERT_AFTER);
	register_pass(info, mv_make_sites_pass(g), "shorten",
		      PASS_POS_INSERT_BEFORE);
	register_pass(info, mv_make_measure_pass(g), "shorten",
		      PASS_POS_INSERT_AFTER);
	register_pass(info, mv_make_inline_pass(g), "shorten",
		      PASS_POS_INSERT_AFTER);

	register_callback(info->base_name, PLUGIN_FINISH_UNIT,
			  mv_emit_descriptors, NULL);
	return 0;
}
