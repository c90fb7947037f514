//===- ExternalTools.cpp - Running a backend's external tools -------------===//

#include "kiln/Target/ExternalTools.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln;

FailureOr<std::string> kiln::findTool(ModuleOp module, llvm::StringRef tool,
                                      llvm::StringRef explicitPath,
                                      const char *envVar,
                                      ArrayRef<llvm::StringRef> search) {
  std::string chosen = explicitPath.str();
  if (chosen.empty())
    if (std::optional<std::string> env = llvm::sys::Process::GetEnv(envVar))
      chosen = *env;
  if (!chosen.empty()) {
    if (llvm::sys::fs::can_execute(chosen))
      return chosen;
    return module.emitError()
           << tool << " '" << chosen << "' is not an executable file (from "
           << (explicitPath.empty() ? envVar : "options") << ")";
  }
  for (llvm::StringRef candidate : search) {
    if (!candidate.contains('/')) {
      if (llvm::ErrorOr<std::string> found =
              llvm::sys::findProgramByName(candidate))
        return *found;
    } else if (llvm::sys::fs::can_execute(candidate)) {
      return candidate.str();
    }
  }
  InFlightDiagnostic diag = module.emitError()
                            << tool << " not found (set " << envVar
                            << " or put it on PATH)";
  // As data too, so a host can fall back (load assembly through the driver).
  Builder b(module.getContext());
  diag.getUnderlyingDiagnostic()->getMetadata().push_back(
      DiagnosticArgument(b.getDictionaryAttr(
          {b.getNamedAttr("kind", b.getStringAttr("missing_tool")),
           b.getNamedAttr("tool", b.getStringAttr(tool))})));
  return diag;
}

FailureOr<TempFile> kiln::makeTempFile(ModuleOp module,
                                       llvm::StringRef suffix) {
  TempFile file;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kiln", suffix, file.path))
    return module.emitError() << "cannot create a temporary ." << suffix
                              << " file: " << ec.message();
  file.remover.emplace(file.path);
  return file;
}

FailureOr<std::string> kiln::readFile(ModuleOp module, llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return module.emitError()
           << "cannot read '" << path << "': " << buffer.getError().message();
  return (*buffer)->getBuffer().str();
}

LogicalResult kiln::writeFile(ModuleOp module, llvm::StringRef path,
                              llvm::StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (!ec) {
    os << data;
    os.close();
    ec = os.error();
  }
  if (ec)
    return module.emitError()
           << "cannot write '" << path << "': " << ec.message();
  return success();
}

LogicalResult kiln::runTool(
    ModuleOp module, llvm::StringRef tool, ArrayRef<llvm::StringRef> args,
    std::string *output,
    llvm::function_ref<std::optional<Location>(llvm::StringRef)> locate) {
  FailureOr<TempFile> log = makeTempFile(module, "log");
  if (failed(log))
    return failure();
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(), log->path.str(), log->path.str()};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(args[0], args, /*Env=*/std::nullopt,
                                     redirects, /*SecondsToWait=*/0,
                                     /*MemoryLimit=*/0, &message);
  if (rc == 0) {
    if (output) {
      FailureOr<std::string> text = readFile(module, log->path);
      *output = succeeded(text) ? *text : std::string();
    }
    return success();
  }
  FailureOr<std::string> logged = readFile(module, log->path);
  std::optional<Location> at;
  if (locate && rc >= 0 && succeeded(logged))
    at = locate(*logged);
  InFlightDiagnostic diag = at ? mlir::emitError(*at) : module.emitError();
  diag << tool << " failed";
  if (rc < 0)
    diag << " to run: " << message;
  else
    diag << " with exit code " << rc;
  if (at)
    diag << " on the inline assembly written here";
  std::string command = llvm::join(args, " ");
  diag << "\n  command: " << command;
  if (succeeded(logged) && !logged->empty())
    diag << "\n" << llvm::StringRef(*logged).rtrim();
  return failure();
}
