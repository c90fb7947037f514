//===- LLVMPassesTool.cpp - kiln-llvm-passes ------------------------------===//
//
// Test tool: reads an LLVM IR file, runs on every defined function the
// LLVM-IR rewrites Serialize runs after the optimizer for a backend that asks
// for them (--pack-narrow-phis: kiln::packNarrowPhis; --sink-shared-loads:
// kiln::sinkSharedLoadsToUses; --sink-widening: kiln::sinkWideningToUses;
// --sink-to-first-uses: kiln::sinkToFirstUses; --sink-loads-past-loops:
// kiln::sinkLoadsPastLoops, with LLVM's default alias analyses and
// --barrier-fence-scope), verifies the
// module and prints it. Lit runs
// the input and the output with lli and compares what they print, so a
// rewrite is judged by execution, not by the shape of its output.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/PackNarrowPhis.h"
#include "kiln/Target/SinkLoadsPastLoops.h"
#include "kiln/Target/SinkSharedLoads.h"
#include "kiln/Target/SinkWidening.h"

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::opt<std::string> input(llvm::cl::Positional,
                                   llvm::cl::desc("<input .ll>"),
                                   llvm::cl::init("-"));
  llvm::cl::opt<bool> pack("pack-narrow-phis",
                           llvm::cl::desc("kiln::packNarrowPhis"));
  llvm::cl::opt<bool> sink("sink-shared-loads",
                           llvm::cl::desc("kiln::sinkSharedLoadsToUses"));
  llvm::cl::opt<bool> widening("sink-widening",
                               llvm::cl::desc("kiln::sinkWideningToUses"));
  llvm::cl::opt<bool> firstUse("sink-to-first-uses",
                               llvm::cl::desc("kiln::sinkToFirstUses"));
  llvm::cl::opt<bool> pastLoops("sink-loads-past-loops",
                                llvm::cl::desc("kiln::sinkLoadsPastLoops"));
  llvm::cl::opt<std::string> fenceScope(
      "barrier-fence-scope",
      llvm::cl::desc("sync scope of the barrier's fences "
                     "(--sink-loads-past-loops)"));
  llvm::cl::opt<unsigned> minPhis(
      "min-phis", llvm::cl::desc("pack a type's phis from this many a block"),
      llvm::cl::init(8));
  llvm::cl::ParseCommandLineOptions(argc, argv, "kiln-llvm-passes\n");
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseIRFile(input, error, context);
  if (!module) {
    error.print(argv[0], llvm::errs());
    return 1;
  }
  llvm::PassBuilder pb;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  unsigned changed = 0;
  for (llvm::Function &f : *module)
    if (!f.isDeclaration()) {
      bool c = false;
      if (pastLoops)
        c |= kiln::sinkLoadsPastLoops(
            f, fam.getResult<llvm::DominatorTreeAnalysis>(f),
            fam.getResult<llvm::LoopAnalysis>(f),
            fam.getResult<llvm::AAManager>(f), fenceScope);
      if (pack)
        c |= kiln::packNarrowPhis(f, minPhis);
      if (widening)
        c |= kiln::sinkWideningToUses(f);
      if (firstUse)
        c |= kiln::sinkToFirstUses(f);
      if (sink)
        c |= kiln::sinkSharedLoadsToUses(f);
      changed += c;
    }
  if (llvm::verifyModule(*module, &llvm::errs())) {
    llvm::errs() << "kiln-llvm-passes: the rewritten module does not verify\n";
    return 1;
  }
  llvm::errs() << "kiln-llvm-passes: changed " << changed << " function(s)\n";
  module->print(llvm::outs(), nullptr);
  return 0;
}
