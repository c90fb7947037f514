//===- ExternalTools.h - Running a backend's external tools -----*- C++ -*-===//
//
// Finding a helper program, temporary files and running it with its output
// attached to an error at the module. Shared by the vendor backends.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_EXTERNALTOOLS_H
#define KILN_TARGET_EXTERNALTOOLS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileUtilities.h"

#include <optional>
#include <string>

namespace kiln {

/// Finds a helper program. An explicit path or `envVar` wins and must exist;
/// otherwise the first existing entry of `search` (names without a '/' are
/// looked up on PATH).
mlir::FailureOr<std::string> findTool(mlir::ModuleOp module,
                                      llvm::StringRef tool,
                                      llvm::StringRef explicitPath,
                                      const char *envVar,
                                      llvm::ArrayRef<llvm::StringRef> search);

/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
};

mlir::FailureOr<TempFile> makeTempFile(mlir::ModuleOp module,
                                       llvm::StringRef suffix);
mlir::FailureOr<std::string> readFile(mlir::ModuleOp module,
                                      llvm::StringRef path);
mlir::LogicalResult writeFile(mlir::ModuleOp module, llvm::StringRef path,
                              llvm::StringRef data);
/// Runs `args` (args[0] is the program), attaching its output to the error
/// diagnostic when it fails; when it succeeds, its output (stdout and stderr)
/// goes to `output` if given. `locate`, given the failed run's output, may
/// name the inline assembly it rejected: the error is then there (the user's
/// line that wrote it) rather than at the module.
mlir::LogicalResult
runTool(mlir::ModuleOp module, llvm::StringRef tool,
        llvm::ArrayRef<llvm::StringRef> args, std::string *output = nullptr,
        llvm::function_ref<std::optional<mlir::Location>(llvm::StringRef)>
            locate = nullptr);

} // namespace kiln

#endif
