//===- Serialize.h - LLVM dialect to PTX/cubin/AMDGCN/hsaco -----*- C++ -*-===//
//
// The last step of a Kiln compile: an LLVM-dialect module (with NVVM or ROCDL
// ops) becomes LLVM IR, goes through LLVM's optimizer and code generator for
// one known target, and, for binaries, through ptxas or ld.lld.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_SERIALIZE_H
#define KILN_TARGET_SERIALIZE_H

#include "kiln/Target/Targets.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace kiln {

/// What `serializeModule` produces.
enum class EmitKind {
  /// Textual LLVM IR after the optimizer (any target).
  LLVMIR,
  /// PTX assembly text (NVIDIA).
  PTX,
  /// ELF binary from ptxas (NVIDIA).
  Cubin,
  /// AMDGCN assembly text (AMD).
  AMDGCN,
  /// Linked ELF code object from ld.lld (AMD).
  HSACO,
};

/// Parse "llvm", "ptx", "cubin", "amdgcn" or "hsaco". Returns std::nullopt for
/// anything else.
std::optional<EmitKind> parseEmitKind(llvm::StringRef name);

/// The command-line spelling of `kind` (the inverse of parseEmitKind).
llvm::StringRef stringifyEmitKind(EmitKind kind);

/// Spellings accepted by parseEmitKind, for error messages.
llvm::StringRef knownEmitKindNames();

/// Knobs of `serializeModule`.
struct SerializeOptions {
  /// LLVM optimization level, 0 to 3, for both the optimizer and codegen.
  unsigned optLevel = 3;
  /// ptxas to run for cubin. Empty: $KILN_PTXAS, then `ptxas` on PATH, then
  /// /usr/local/cuda/bin/ptxas.
  std::string ptxasPath;
  /// ld.lld to link hsaco. Empty: $KILN_LLD, then
  /// the ld.lld beside the LLVM Kiln was built with, then `ld.lld` on PATH.
  std::string lldPath;
};

/// Translate an LLVM-dialect module (which may contain NVVM or ROCDL ops) to
/// LLVM IR, set the triple and data layout of `target`, run the O`optLevel`
/// pipeline and produce the artifact `kind`: text for LLVMIR, PTX and AMDGCN,
/// binary bytes for Cubin and HSACO. Kernels must already carry the
/// `nvvm.kernel` / `rocdl.kernel` attribute.
///
/// Every failure (an emit kind the vendor cannot produce, translation or
/// LLVM verifier errors, code generator errors, a missing or failing ptxas or
/// ld.lld) is reported as an error diagnostic on `module` and returns
/// failure; this function never exits the process.
mlir::FailureOr<std::string> serializeModule(mlir::ModuleOp module,
                                             const TargetDesc &target,
                                             EmitKind kind,
                                             const SerializeOptions &opts = {});

} // namespace kiln

#endif // KILN_TARGET_SERIALIZE_H
