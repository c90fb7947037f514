//===- Serialize.h - LLVM dialect to assembly and binaries ------*- C++ -*-===//
//
// The last step of a Kiln compile: an LLVM-dialect module (with the vendor's
// LLVM-level ops) becomes LLVM IR, goes through LLVM's optimizer and code
// generator for one known target, and, for binaries, through the backend's
// external step (Backend::makeBinary).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_SERIALIZE_H
#define KILN_TARGET_SERIALIZE_H

#include "kiln/Target/Targets.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kiln {

/// What `serializeModule` produces. The assembly and binary are named by
/// the target's backend (Backend::getAssemblyName / getBinaryName).
enum class EmitKind {
  /// Textual LLVM IR after the optimizer (any target).
  LLVMIR,
  /// The code generator's assembly text.
  Assembly,
  /// The binary the vendor's driver loads.
  Binary,
};

/// Resolves an --emit name ("llvm", or an assembly or binary name of
/// `target`'s backend). On failure returns std::nullopt and sets `error`
/// (an unknown name, or one that belongs to another vendor).
std::optional<EmitKind> parseEmitKind(llvm::StringRef name,
                                      const TargetDesc &target,
                                      std::string &error);

/// Every --emit name of the built-in backends, for help and errors.
std::string knownEmitKindNames();

/// Knobs of `serializeModule`.
struct SerializeOptions {
  /// LLVM optimization level, 0 to 3, for both the optimizer and codegen.
  unsigned optLevel = 3;
  /// Explicit paths of the external tools a backend runs, by tool name.
  /// A tool without an entry is found as its backend documents
  /// (an environment variable, then a search).
  llvm::StringMap<std::string> toolPaths;

  llvm::StringRef toolPath(llvm::StringRef tool) const {
    auto it = toolPaths.find(tool);
    return it == toolPaths.end() ? llvm::StringRef() : it->second;
  }
};

/// Translate an LLVM-dialect module (which may contain the vendor's ops) to
/// LLVM IR, set the triple and data layout of `target`, run the O`optLevel`
/// pipeline and produce the artifact `kind`: text for LLVMIR and Assembly,
/// binary bytes for Binary. Kernels must already carry the vendor's kernel
/// attribute.
///
/// Every failure (translation or LLVM verifier errors, code generator
/// errors, a missing or failing external tool) is reported as an error
/// diagnostic on `module` and returns failure; this function never exits the
/// process.
mlir::FailureOr<std::string> serializeModule(mlir::ModuleOp module,
                                             const TargetDesc &target,
                                             EmitKind kind,
                                             const SerializeOptions &opts = {});

/// Several artifacts of one compile, in the order of `kinds`: the module is
/// translated and optimized once, and each code generator run works on a
/// copy of the optimized module, so every artifact is byte-identical to the
/// one serializeModule(kind) makes alone.
/// Where serializeModule spends its time, in seconds.
struct SerializeTimings {
  double translate = 0; ///< LLVM dialect to LLVM IR, checks included
  double optimize = 0;  ///< LLVM's optimizer
  double codegen = 0;   ///< LLVM's code generator (every run)
  double binary = 0;    ///< the backend's external step (assembler, linker)
};

mlir::FailureOr<llvm::SmallVector<std::string>>
serializeModule(mlir::ModuleOp module, const TargetDesc &target,
                llvm::ArrayRef<EmitKind> kinds,
                const SerializeOptions &opts = {},
                SerializeTimings *timings = nullptr);

} // namespace kiln

#endif // KILN_TARGET_SERIALIZE_H
