/* SPDX-License-Identifier: MIT */
/*
 * What the Clang front end's files share.  The pieces, in the order a
 * unit meets them:
 *   attribute.cpp   the attribute and its diagnostics (Clang's Sema);
 *   cxx.cpp         C++: mangled names, template instances, the names
 *                   users see;
 *   fixit.cpp       the fix-it hints some of those diagnostics carry;
 *   members.cpp     the member switches of each object, after Sema;
 *   uses.cpp        warnings about writes to switches, after Sema;
 *   specialize.cpp  at the start of LLVM's pipeline: variants, and the
 *                   generics and variants protected from IPO, with
 *                   domain.cpp: the values each variant is for;
 *   fnptr.cpp       also at the start: calls through function-pointer
 *                   switches sent to stubs that commit can bypass;
 *   merge.cpp       at the end of the pipeline: identical variants merged,
 *                   protection lifted, descriptors emitted
 *                   (descriptors.cpp);
 *   sites.cpp       in the AsmPrinter: the entry NOP and the call sites.
 */
#ifndef MULTIVERSE_CLANG_H
#define MULTIVERSE_CLANG_H

#include "llvm/IR/PassManager.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace llvm { class Constant; class DataLayout; class Function; class GlobalValue; class GlobalVariable; class LoadInst; class Module; class Value; }
namespace clang { class ASTConsumer; class ASTContext; class Attr; class Decl; class DeclaratorDecl;
		  class FieldDecl; class FixItHint; class FunctionDecl; class GlobalDecl;
		  class MangleContext; class NamedDecl; }

/* mv_decl.flags */
#define MV_DECL_SIGNED  0x1u
#define MV_DECL_FNPTR   0x2u
#define MV_DECL_VALUES  0x4u
#define MV_DECL_TRACKED 0x8u
#define MV_DECL_INLINE  0x10u     /* ("inline", N): call sites of N bytes */

/* A declaration with the attribute, by IR name (attribute.cpp). */
struct mv_decl {
	bool function;
	unsigned flags;                 /* MV_DECL_* (switches) */
	std::vector<int64_t> values;    /* with MV_DECL_VALUES */
	unsigned inline_size = 0;       /* with MV_DECL_INLINE */
};
/* The bytes of each call site of a function or function-pointer switch
 * (its IR name), padding included: its ("inline", N), else the plugin
 * argument inline-size=N (default 0). */
unsigned mv_inline_size(const std::string &name);
extern unsigned mv_default_inline_size;
/* The attribute a generic's or a stub's IR function carries with it. */
#define MV_INLINE_SIZE_ATTR "multiverse-inline-size"
extern std::map<std::string, mv_decl> mv_declared;
/* The same declarations as Sema has them: the multiversed functions and
 * the integer switches, for uses.cpp. */
extern std::set<const clang::Decl *> mv_function_decls, mv_int_switch_decls,
	mv_fnptr_switch_decls;

/* The name a declaration has in LLVM IR: in C (attribute.cpp), and in
 * either language (cxx.cpp); for a constructor or destructor, its base
 * object's. */
std::string mv_c_ir_name(const clang::NamedDecl *d);
std::string mv_ir_name(const clang::NamedDecl *d);
std::string mv_ir_name_of(clang::MangleContext &mc, clang::GlobalDecl gd);
/* Records a declaration's attribute under one of its IR names
 * (attribute.cpp). */
void mv_record_decl(const clang::NamedDecl *d, const std::string &ir_name, mv_decl decl);
/* cxx.cpp: C++'s declarations are recorded once Sema has seen the unit,
 * by the consumer that must run before the others; their names as users
 * see them, by IR name (the IR name itself in C); a declaration's name
 * as it is shown (C: its name; C++: qualified, as GCC spells it). */
void mv_cxx_defer(const clang::NamedDecl *d, const mv_decl &decl);
std::unique_ptr<clang::ASTConsumer> mv_make_cxx_recorder(void);
std::string mv_display_name(llvm::StringRef ir_name);
/* Records the multiversed functions whose IR names C++ leaves to CodeGen
 * (a lambda, a member of a local or an unnamed class), found by the
 * annotations cxx.cpp gave them; first in the IR passes. */
void mv_claim_unnamed(llvm::Module &m);
std::string mv_source_name(const clang::NamedDecl *d);

/* Members with the attribute (attribute.cpp), and the member switches of
 * each object with static storage duration, by the object's IR name
 * (members.cpp), for specialize.cpp. */
extern std::map<const clang::FieldDecl *, mv_decl> mv_field_decls;
/* What the attribute made member f, or null: its own record, or in an
 * instance of a class template its pattern's (the attribute is seen on
 * the template; the member's type cannot depend on its parameters). */
const mv_decl *mv_field_switch(const clang::FieldDecl *f);
struct mv_member {
	uint64_t offset;                /* bytes into the object */
	unsigned width;                 /* bytes */
	mv_decl decl;
	std::string name;               /* cfg.in.mode, per_cpu[2].depth */
};
extern std::map<std::string, std::vector<mv_member>> mv_objects;
std::unique_ptr<clang::ASTConsumer> mv_make_member_table(void);

/* fixit.cpp: the edits that fix a declaration, where its tokens show them
 * unambiguously (else an empty hint) */
clang::FixItHint mv_fixit_remove_const(const clang::DeclaratorDecl *d);
clang::FixItHint mv_fixit_remove_thread_local(const clang::DeclaratorDecl *d);
clang::FixItHint mv_fixit_remove_attribute(const clang::Attr *a, const clang::FunctionDecl *fn);

/* uses.cpp: warns where a multiversed function writes an integer switch
 * or takes its address. */
std::unique_ptr<clang::ASTConsumer> mv_make_use_checker(void);

/* The function attribute that marks a generic for sites.cpp, with the
 * length of the landing pad its entry NOP must follow (0: none, and
 * sites.cpp plants a debugger's NOP of MV_ENTRY_OFFSET bytes there). */
#define MV_GENERIC_ATTR "multiverse-generic"
/* Where each generic's entry NOP lies: after a first instruction of 4
 * bytes, its landing pad or a NOP that a debugger's breakpoint on the
 * function may cover (MV_FN_ENTRY_AFTER_PAD); on AArch64 after both
 * (MV_FN_ENTRY_AFTER_PAD_NOP, mv_arch.debugger_skips_pad). */
#define MV_ENTRY_OFFSET 4
/* The section of the variant tables and guards (descriptors.cpp), whose
 * tables inline.cpp writes again with what the final code says. */
#define MV_SECTION_VARIANTS ".data.rel.ro.multiverse"
/* inline.cpp: adds to ap the handler that describes inlinable variants. */
namespace llvm { class AsmPrinter; }
struct mv_arch;
void mv_add_inline_recorder(llvm::AsmPrinter *ap, const mv_arch *arch);
/* inline.cpp, for sites.cpp: 1 if the AsmPrinter has emitted body, a
 * variant, and it may be copied, with the length of its copy as an
 * assembler expression in *len; 0 if it may not be; -1 if it is not
 * emitted yet. */
namespace llvm { class MCExpr; }
int mv_copy_length(const llvm::Function &body, const llvm::MCExpr **len);
/* The attribute of a generic whose ("inline", N) does not size its call
 * sites in the unit that compiles its variants: the variants' IR names,
 * separated by commas (merge.cpp).  Their lengths size the sites. */
#define MV_SIZED_BY_ATTR "multiverse-sized-by"

/* The function attributes that mark a switch's stub (fnptr.cpp) for
 * sites.cpp, with the IR name of the switch's object and the switch's
 * offset in it. */
#define MV_STUB_ATTR "multiverse-stub"
#define MV_STUB_OFFSET_ATTR "multiverse-stub-offset"
/* On a probe's variant for "not NULL": "object:offset " for each probe it
 * assumes set, whose stub calls are sites MV_SITE_IN_PROBE_VARIANT. */
#define MV_PROBE_SET_ATTR "multiverse-probe-set"
inline std::string mv_probe_key(const std::string &object, uint64_t offset)
{
	return object + ":" + std::to_string(offset) + " ";
}

struct MultiverseSpecialize : llvm::PassInfoMixin<MultiverseSpecialize> {
	unsigned max_variants = 64;
	bool optional_runtime = false;
	llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &);
	static bool isRequired() { return true; }
};

struct MultiverseFinish : llvm::PassInfoMixin<MultiverseFinish> {
	llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &);
	static bool isRequired() { return true; }
};

/* The named metadata through which specialize.cpp hands merge.cpp the
 * variants: per generic !{generic, !{body, (sw, low, high, unsigned)...}...}. */
#define MV_VARIANTS_MD "multiverse.variants"
/* The saved linkage of a generic or variant while it is weak_odr. */
#define MV_LINKAGE_ATTR "multiverse-linkage"

struct mv_range {
	llvm::Constant *sw;             /* the switch's address */
	int64_t low, high;
};

struct mv_record {
	llvm::Function *body;
	std::vector<mv_range> guards;
};

/* probes.cpp: a function-pointer switch compared with NULL (a probe),
 * given its plain loads in a function, and whether the function reads it
 * otherwise too */
enum mv_probe_use {
	MV_PROBE_NONE,          /* not compared with NULL */
	MV_PROBE_TESTED,        /* a probe: only compared and called */
	MV_PROBE_UNTRACED,      /* compared, but its value also goes elsewhere */
};
enum mv_probe_use mv_probe_use(const std::vector<llvm::LoadInst *> &loads, bool other_reads);
/* Replaces the comparisons by what they give when the switch is set (not
 * NULL) or not; the loads stay. */
void mv_probe_fold(const std::vector<llvm::LoadInst *> &loads, bool set);
/* The probes' addresses, for the report's guards */
extern std::set<llvm::Constant *> mv_probe_switches;

/* descriptors.cpp.  Each record made is added to used, which the caller
 * hands to appendToUsed() once: a call per record rebuilds llvm.used each
 * time, quadratic in the number of records. */
void mv_emit_var(llvm::Module &m, llvm::Constant *addr, const std::string &name,
		 unsigned width, unsigned decl_flags, std::vector<llvm::GlobalValue *> &used);
void mv_emit_function(llvm::Module &m, llvm::Function &f,
		      const std::vector<mv_record> &records,
		      std::vector<llvm::GlobalValue *> &used);
void mv_emit_registration(llvm::Module &m, bool optional_runtime);
/* The name of the destructor it adds (the constructor's depends on the
 * options): a unit that has it registers the module. */
#define MV_UNREGISTER_FN "multiverse.unregister"

/* A function-pointer switch, at offset bytes into the global object gv
 * (0 for a global switch), for fnptr.cpp. */
struct mv_fnptr_switch {
	llvm::Constant *addr;           /* gv, or gv + offset */
	std::string name;               /* hook, ops.hook */
};
typedef std::map<std::pair<llvm::GlobalVariable *, uint64_t>, mv_fnptr_switch>
	mv_fnptr_switches;

/* domain.cpp: the values a function gets variants for, from the loads of
 * an integer switch of width bytes that it tests */
std::vector<int64_t> mv_domain(const std::vector<llvm::Value *> &reads, unsigned width,
			       bool is_signed);

/* specialize.cpp: the global object p points into at a constant offset */
llvm::GlobalVariable *mv_object_of(llvm::Value *p, const llvm::DataLayout &dl,
				   uint64_t *offset);

/* fnptr.cpp: calls through the switches sws go to their stubs; returns
 * the addresses of the switches that have such calls. */
std::set<llvm::Constant *> mv_redirect_switch_calls(llvm::Module &m,
						    const mv_fnptr_switches &sws);

/* sites.cpp */
void mv_hook_asm_printers(void);
/* sites.cpp: whether a record may hold gv's address as a distance
 * (common/descriptor.h), for every record's fields; and value less the
 * address of the field out emits next, which makes it a distance. */
bool mv_static_link_resolves(const llvm::GlobalValue &gv);
namespace llvm { class MCStreamer; }
const llvm::MCExpr *mv_from_here(llvm::MCStreamer &out, const llvm::MCExpr *value);
/* sites.cpp: a descriptor section, in the COMDAT group of what its
 * records describe (C++'s inline functions and template instances), so
 * that the linker keeps or drops them with it; group null: none. */
namespace llvm { class Comdat; class MCContext; class MCSection; }
llvm::MCSection *mv_descriptor_section(llvm::MCContext &ctx, const char *name,
				       const llvm::Comdat *group);

/* report.cpp: -fplugin-arg-multiverse-report[-json][=FILE], by the
 * functions' IR names */
struct mv_report_fn {
	bool defined = false;             /* in this unit: only those are reported */
	std::string file;
	unsigned line = 0, column = 0;
	std::vector<std::string> specialized;                      /* switches */
	std::vector<std::string> domains;                          /* theirs, as JSON */
	std::vector<std::pair<std::string, std::string>> dynamic;  /* name, why */
	std::string generic_only;
	unsigned made = 0;
	std::vector<std::pair<std::string, std::vector<std::string>>> kept; /* symbol, guards */
};
extern std::string mv_report_file;                  /* empty: stderr */
extern bool mv_report_on, mv_report_json;
extern std::map<std::string, mv_report_fn> mv_report;
extern std::map<llvm::Constant *, std::string> mv_switch_names;
bool mv_write_report(std::string &error);
/* Whether this compile goes on to the AsmPrinter (assembler or object
 * output), whose handlers then know what the report lacks before it:
 * MultiverseFinish leaves the report to inline.cpp, which writes it when
 * the module ends, with these.  (Keyed by IR name.) */
extern bool mv_codegen_follows;
extern std::map<std::string, unsigned> mv_inline_why;           /* variant: MV_INLINE_* */
extern std::map<std::string, std::pair<unsigned, unsigned>> mv_calls; /* calls, padded */
extern std::map<std::string, unsigned> mv_site_size;            /* function: N */
#define MV_SITE_SIZE_ASSEMBLER (~0u)    /* N by its variants, the assembler's */
void mv_module_emitted(llvm::Module &m);

#endif
