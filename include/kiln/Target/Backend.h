//===- Backend.h - What a vendor adds to serialization ----------*- C++ -*-===//
//
// Serialization (lib/Target/Serialize.cpp) is target-neutral: translation to
// LLVM IR, LLVM's optimizer and code generator. What only one vendor needs --
// its LLVM target, its dialect's translation, checks its code generator
// would abort on, module flags, and the external step from assembly or
// object code to the binary the driver loads -- lives in
// third_party/<vendor>/lib/Target behind this interface, registered at start
// up like the lowering's TargetInfo.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_BACKEND_H
#define KILN_TARGET_BACKEND_H

#include "kiln/Target/Serialize.h"
#include "kiln/Target/Targets.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>

namespace llvm {
class MCSubtargetInfo;
class Module;
} // namespace llvm

namespace kiln {

class Backend {
public:
  virtual ~Backend();

  virtual Vendor getVendor() const = 0;
  /// The vendor's name in messages ("NVIDIA").
  virtual llvm::StringRef getName() const = 0;
  /// Prefix of the vendor's LLVM-dialect ops and attributes ("nvvm").
  virtual llvm::StringRef getDialectPrefix() const = 0;
  /// Registers LLVM's code generator for the vendor (idempotent).
  virtual void initializeLLVMTarget() const = 0;
  /// Registers the translation of the vendor's dialect to LLVM IR.
  virtual void registerTranslation(mlir::MLIRContext &context) const = 0;
  /// Rejects LLVM-dialect IR the vendor's code generator would abort on.
  virtual mlir::LogicalResult
  verifyModule(mlir::ModuleOp module, const TargetDesc &target,
               const llvm::MCSubtargetInfo &subtarget) const;
  /// Adjusts the translated module before optimization (module flags).
  virtual void prepareModule(llvm::Module &module,
                             const TargetDesc &target) const;
  /// Whether makeBinary takes the code generator's object file (true) or
  /// its assembly (false).
  virtual bool binaryFromObject() const = 0;
  /// The loadable binary (cubin, hsaco) from the code generator's output.
  virtual mlir::FailureOr<std::string>
  makeBinary(mlir::ModuleOp module, const TargetDesc &target,
             llvm::StringRef codegenOutput,
             const SerializeOptions &options) const = 0;
};

/// Called by each vendor library's registration function.
void registerBackend(std::unique_ptr<Backend> backend);
/// The backend of `vendor`, or null when it is not built in.
const Backend *lookupBackend(Vendor vendor);
/// Every registered backend.
llvm::SmallVector<const Backend *> getBackends();

} // namespace kiln

#endif
