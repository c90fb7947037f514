//===- kiln-opt.cpp - mlir-opt with Kiln's dialects and pipelines ---------===//

#include "kiln/InitAll.h"
#include "kiln/Support/InputLimits.h"
#include "TestPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// The options static initializers registered before main: LLVM's code
/// generators' and optimizers' hundreds of flags. They stay usable but move
/// behind --help-hidden, so that --help leads with kiln-opt's own options,
/// Kiln's passes and pipelines (registered below).
static void hideLibraryOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::StringRef name = entry.first;
    if (name == "help" || name == "help-hidden" || name == "version" ||
        name == "color")
      continue;
    entry.second->setHiddenFlag(llvm::cl::Hidden);
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  hideLibraryOptions();
  DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  kiln::registerTestPasses();
  auto [inputFilename, outputFilename] =
      registerAndParseCLIOptions(argc, argv, "Kiln optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // A pass may report an error and still succeed (a diagnostic emitted by a
  // utility whose failure the pass then handles): any error printed means a
  // failed run, unless the run verifies expected diagnostics.
  bool sawError = false;
  if (!config.shouldVerifyDiagnostics()) {
    MlirOptMainConfig original = config;
    config.setPassPipelineSetupFn([original, &sawError](PassManager &pm) {
      pm.getContext()->getDiagEngine().registerHandler([&sawError](
                                                          Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error)
          sawError = true;
        return failure(); // still printed by the driver's handler
      });
      return original.setupPassPipeline(pm);
    });
  }

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  // Too-deep nesting would overflow the parser's stack: report it instead.
  {
    MLIRContext context;
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    if (failed(kiln::checkNestingDepth(input->getBuffer(),
                                       input->getBufferIdentifier(), &context)))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  int rc = kiln::runWithLargeStack([&] {
    return failed(MlirOptMain(output->os(), std::move(input), registry, config))
               ? 1
               : 0;
  });
  if (sawError)
    rc = 1;
  if (rc == 0)
    output->keep();
  return rc;
}
