/* SPDX-License-Identifier: MIT */
/*
 * Multiverse Clang plugin: compiles one specialized variant of each
 * function marked __attribute__((multiverse)) per combination of the
 * values of the multiverse switches it reads, and records the
 * descriptors the runtime library needs to bind the switches by binary
 * patching.  The same language and descriptor format as the GCC plugin
 * (gcc/multiverse.cc).
 *
 * Usage:
 *   clang-19 -fplugin=multiverse-clang.so [-fplugin-arg-multiverse-max-variants=N] ...
 * or the multiverse-clang wrapper, which also adds the header and runtime.
 * The one -fplugin loads everything: the attribute, the IR passes (added
 * to LLVM's pipeline from here) and the AsmPrinter hook.
 *
 * Options (-fplugin-arg-multiverse-...), as the GCC plugin's:
 *   inline-size=N    bytes of each call site of a multiversed function or
 *                    function-pointer switch without ("inline", N), where
 *                    the unit does not compile the function's variants
 *                    (whose sizes then size it): NOPs pad the call (0 to
 *                    64, default 0: none);
 *   max-variants=N   per-function cap on variants (default 64);
 *   optional-runtime weak references to the runtime: the module registers
 *                    only if the runtime is linked in;
 *   report[=FILE]    the compile report (report.cpp), on stderr or
 *                    appended to FILE; report-json[=FILE] as JSON lines;
 *   version          prints the plugin's version, and the LLVM it was
 *                    built for, on stderr.
 *
 * Example:
 *   __attribute__((multiverse)) int config_smp;
 *   __attribute__((multiverse)) void spin_irq_lock(spinlock_t *l)
 *   {
 *       if (config_smp) ...
 *   }
 */
#include "multiverse.h"
#include "descriptor.h"
#include "multiverse-version.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/CGPassBuilderOption.h"

using namespace clang;

namespace {

/*
 * Interprocedural register allocation (-mllvm -enable-ipra) lets a caller
 * rely on the registers a function compiled before it leaves alone.
 * sites.cpp replaces each generic's record with the ABI's before the next
 * function is compiled, which holds while code is generated function by
 * function.  LLVM's machine outliner (on by default for AArch64) is a
 * module pass: every function would be compiled before the first is
 * emitted.  So with IPRA the outliner is turned off, and asking for both
 * is an error.
 */
void keep_codegen_per_function(DiagnosticsEngine &d)
{
	auto &opts = llvm::cl::getRegisteredOptions();
	auto *ipra = static_cast<llvm::cl::opt<bool> *>(opts.lookup("enable-ipra"));
	auto *outliner = static_cast<llvm::cl::opt<llvm::RunOutliner> *>(
		opts.lookup("enable-machine-outliner"));
	if (!ipra || !ipra->getValue() || !outliner)
		return;
	if (outliner->getNumOccurrences() && outliner->getValue() != llvm::RunOutliner::NeverOutline) {
		d.Report(d.getCustomDiagID(DiagnosticsEngine::Error, "multiverse: %0"))
			<< "'-enable-ipra' and '-enable-machine-outliner' together are not "
			   "supported: callers could rely on registers a variant clobbers";
		return;
	}
	outliner->addOccurrence(0, "enable-machine-outliner", "never");
}

/* The macros that tell a source the plugin is there (include/multiverse.h),
 * before the command line's, so that -U still takes them away.  (The
 * main file is entered after the AST consumer is made.) */
void define_macros(Preprocessor &pp)
{
	std::string defs = "#define __MULTIVERSE__ 1\n#define __MULTIVERSE_VERSION__ " +
			   std::to_string(MV_VERSION_NUMBER) + "\n";
	std::string all = pp.getPredefines();
	/* the command line's -D and -U come after Clang's own, at the end */
	size_t at = all.find("# 1 \"<command line>\"");
	all.insert(at == std::string::npos ? all.size() : at, defs);
	pp.setPredefines(all);
}

struct Action : PluginASTAction {
	unsigned max_variants = 64;
	bool optional_runtime = false;

	std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci, StringRef) override
	{
		if (ci.getCodeGenOpts().PrepareForLTO || ci.getCodeGenOpts().PrepareForThinLTO) {
			DiagnosticsEngine &d = ci.getDiagnostics();
			d.Report(d.getCustomDiagID(DiagnosticsEngine::Error, "multiverse: %0"))
				<< "'-flto' is not supported: the plugin runs only at compile "
				   "time and link-time optimization would compile code without "
				   "it; build without '-flto'";
		}
		keep_codegen_per_function(ci.getDiagnostics());
		mv_codegen_follows = ci.getFrontendOpts().ProgramAction == frontend::EmitObj ||
				     ci.getFrontendOpts().ProgramAction == frontend::EmitAssembly;
		define_macros(ci.getPreprocessor());
		unsigned cap = max_variants;
		bool optional = optional_runtime;
		ci.getCodeGenOpts().PassBuilderCallbacks.push_back([cap, optional](llvm::PassBuilder &pb) {
			pb.registerPipelineStartEPCallback(
				[cap, optional](llvm::ModulePassManager &mpm, llvm::OptimizationLevel) {
					MultiverseSpecialize s;
					s.max_variants = cap;
					s.optional_runtime = optional;
					mpm.addPass(std::move(s));
				});
			pb.registerOptimizerLastEPCallback(
				[](llvm::ModulePassManager &mpm, llvm::OptimizationLevel) {
					mpm.addPass(MultiverseFinish());
				});
		});
		mv_hook_asm_printers();
		std::vector<std::unique_ptr<ASTConsumer>> consumers;
		consumers.push_back(mv_make_cxx_recorder());    /* first: the others need it */
		consumers.push_back(mv_make_member_table());
		consumers.push_back(mv_make_use_checker());
		return std::make_unique<MultiplexConsumer>(std::move(consumers));
	}

	bool ParseArgs(const CompilerInstance &ci, const std::vector<std::string> &args) override
	{
		DiagnosticsEngine &d = ci.getDiagnostics();
		for (const std::string &a : args) {
			StringRef s(a);
			unsigned n;
			if (s.consume_front("max-variants=") && !s.getAsInteger(10, n) &&
			    n >= 1 && n <= 100000) {
				max_variants = n;
				continue;
			}
			if (StringRef(a).starts_with("inline-size=")) {
				StringRef v = StringRef(a).substr(sizeof "inline-size=" - 1);
				if (v.getAsInteger(10, n) || n > MV_INLINE_MAX) {
					d.Report(d.getCustomDiagID(DiagnosticsEngine::Error, "multiverse: %0"))
						<< ("'inline-size' takes a number of bytes from 0 to " +
						    std::to_string(MV_INLINE_MAX) + ", not '" + v.str() + "'");
					return false;
				}
				mv_default_inline_size = n;
				continue;
			}
			if (s == "report" || s == "report-json" || s.starts_with("report=") ||
			    s.starts_with("report-json=")) {
				mv_report_on = true;
				mv_report_json = s.starts_with("report-json");
				size_t eq = a.find('=');
				mv_report_file = eq == std::string::npos ? "" : a.substr(eq + 1);
				if (eq != std::string::npos && mv_report_file.empty()) {
					d.Report(d.getCustomDiagID(DiagnosticsEngine::Error,
						"multiverse: '%0=' needs a file name")) << a.substr(0, eq);
					return false;
				}
				continue;
			}
			if (a == "optional-runtime") {
				optional_runtime = true;
				continue;
			}
			if (a == "version") {
				llvm::errs() << "multiverse " MV_VERSION_STRING " (Clang plugin, built for LLVM "
					     << LLVM_VERSION_STRING << ")\n";
				continue;
			}
			if (s.starts_with("optional-runtime=")) {
				d.Report(d.getCustomDiagID(DiagnosticsEngine::Error, "multiverse: %0"))
					<< ("'optional-runtime' takes no value, not '" +
					    a.substr(sizeof "optional-runtime=" - 1) + "'");
				return false;
			}
			std::string key = a.substr(0, a.find('=')), meant;
			for (const char *k : { "inline-size", "max-variants", "optional-runtime",
					       "report", "report-json", "version" })
				if (key != k && StringRef(key).edit_distance(k) <= 2)
					meant = k;
			d.Report(d.getCustomDiagID(DiagnosticsEngine::Error, "multiverse: %0"))
				<< ("bad plugin argument '" + a + "'; " +
				    (meant.empty() ? "" : "did you mean '" + meant + "'? ") +
				    "the arguments are 'inline-size=N' (0 to 64), 'max-variants=N' (1 to 100000), "
				    "'optional-runtime', 'report[=FILE]', 'report-json[=FILE]' "
				    "and 'version'");
			return false;
		}
		return true;
	}

	ActionType getActionType() override { return AddBeforeMainAction; }
};

FrontendPluginRegistry::Add<Action> registered("multiverse",
	"Multiverse: specialize functions on the values of switches");

} // namespace
