//===- kiln-translate.cpp - LLVM dialect to LLVM IR, PTX, AMDGCN, binaries ===//
//
// The last stage of a Kiln compile as a command-line tool, so that any
// compile the Python side ran can be replayed from its saved LLVM-dialect
// text:
//
//   kiln-translate --target=cuda:sm_90a --emit=cubin kernel.mlir -o k.cubin
//
// Without --target, the module's tile.target attribute names it (every
// module a Kiln compile writes carries one).
//
//===----------------------------------------------------------------------===//

#include "kiln/InitAll.h"
#include "kiln/Support/InputLimits.h"
#include "kiln/Target/Serialize.h"
#include "kiln/Target/Targets.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

static llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                                llvm::cl::desc("<input .mlir>"),
                                                llvm::cl::init("-"));

static llvm::cl::opt<std::string>
    outputFilename("o", llvm::cl::desc("Output file (default: stdout)"),
                   llvm::cl::value_desc("filename"), llvm::cl::init("-"));

static llvm::cl::opt<std::string>
    targetName("target",
               llvm::cl::desc("Target, e.g. cuda:sm_90a or hip:gfx942 (default: "
                              "the module's tile.target)"));

static llvm::cl::opt<std::string>
    emitName("emit",
             llvm::cl::desc("What to produce: llvm, ptx, cubin, amdgcn, hsaco"),
             llvm::cl::Required);

static llvm::cl::opt<unsigned>
    optLevel("O", llvm::cl::desc("LLVM optimization level (0-3, default 3)"),
             llvm::cl::Prefix, llvm::cl::init(3));

static llvm::cl::opt<std::string>
    ptxasPath("ptxas-path",
              llvm::cl::desc("ptxas to use for --emit=cubin (default: "
                             "$KILN_PTXAS, PATH, /usr/local/cuda/bin/ptxas)"));

static llvm::cl::opt<std::string>
    lldPath("lld-path", llvm::cl::desc("ld.lld to use for --emit=hsaco "
                                       "(default: $KILN_LLD, the LLVM 22 "
                                       "one, PATH)"));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "kiln-translate") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "Kiln LLVM-dialect to LLVM IR / PTX / AMDGCN translator\n");

  // Serialization may run lld's library, which resets every command-line
  // option's value: keep what is needed after it.
  const std::string outputPath = outputFilename;

  DialectRegistry registry;
  kiln::registerAllDialects(registry); // also the vendor backends
  kiln::registerAllPasses();

  // The target and what to emit, checked before anything is parsed when the
  // target is given (else once the module names it).
  const kiln::TargetDesc *target = nullptr;
  std::optional<kiln::EmitKind> kind;
  auto resolveTarget = [&](llvm::StringRef name) -> int {
    target = kiln::lookupTarget(name);
    if (!target)
      return fail("unknown target '" + name +
                  "'; known targets: " + kiln::knownTargetNames());
    std::string emitError;
    kind = kiln::parseEmitKind(emitName, *target, emitError);
    if (!kind)
      return fail(emitError);
    return 0;
  };
  if (!targetName.empty())
    if (int rc = resolveTarget(targetName))
      return rc;
  if (optLevel > 3)
    return fail("-O must be 0, 1, 2 or 3");
  MLIRContext context(registry);
  context.disableMultithreading();
  // Errors on the whole module would otherwise print all of it.
  context.printOpOnDiagnostic(false);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input)
    return fail(error);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  llvm::StringRef text = input->getBuffer(),
                  name = input->getBufferIdentifier();
  sourceMgr->AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(*sourceMgr, &context);
  // Any error printed fails the run, even one a step recovered from.
  bool sawError = false;
  context.getDiagEngine().registerHandler([&sawError](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      sawError = true;
    return failure(); // printed by the handler above
  });
  if (failed(kiln::checkNestingDepth(text, name, &context)))
    return 1;

  FailureOr<std::string> artifact = failure();
  int rc = kiln::runWithLargeStack([&] {
    // Parsing also verifies.
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
    if (!module)
      return 1;
    if (!target) {
      auto named = (*module)->getAttrOfType<StringAttr>("tile.target");
      if (!named)
        return fail("no --target given and the module has no tile.target "
                    "attribute; pass --target=<runtime>:<chip> (known: " +
                    kiln::knownTargetNames() + ")");
      if (int rc = resolveTarget(named.getValue()))
        return rc;
    }
    kiln::SerializeOptions options;
    options.optLevel = optLevel;
    if (!ptxasPath.empty())
      options.toolPaths["ptxas"] = ptxasPath;
    if (!lldPath.empty())
      options.toolPaths["ld.lld"] = lldPath;
    artifact = kiln::serializeModule(*module, *target, *kind, options);
    return failed(artifact) ? 1 : 0;
  });
  if (rc != 0)
    return rc;
  if (sawError)
    return 1;

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputPath, &error);
  if (!output)
    return fail(error);
  output->os() << *artifact;
  output->keep();
  return 0;
}
