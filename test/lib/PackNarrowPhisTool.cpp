//===- PackNarrowPhisTool.cpp - kiln-pack-phis ----------------------------===//
//
// Test tool: reads an LLVM IR file, packs the narrow phis of every defined
// function as Serialize does for a backend that asks for it
// (kiln::packNarrowPhis), verifies the module and prints it. Lit runs the
// input and the output with lli and compares what they print, so the packing
// is judged by execution, not by the shape of its output.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/PackNarrowPhis.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  llvm::cl::opt<std::string> input(llvm::cl::Positional,
                                   llvm::cl::desc("<input .ll>"),
                                   llvm::cl::init("-"));
  llvm::cl::opt<unsigned> minPhis(
      "min-phis", llvm::cl::desc("pack a type's phis from this many a block"),
      llvm::cl::init(8));
  llvm::cl::ParseCommandLineOptions(argc, argv, "kiln-pack-phis\n");
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseIRFile(input, error, context);
  if (!module) {
    error.print(argv[0], llvm::errs());
    return 1;
  }
  unsigned packed = 0;
  for (llvm::Function &f : *module)
    if (!f.isDeclaration())
      packed += kiln::packNarrowPhis(f, minPhis);
  if (llvm::verifyModule(*module, &llvm::errs())) {
    llvm::errs() << "kiln-pack-phis: the packed module does not verify\n";
    return 1;
  }
  llvm::errs() << "kiln-pack-phis: packed " << packed << " function(s)\n";
  module->print(llvm::outs(), nullptr);
  return 0;
}
