//===- Backend.h - What a vendor adds to Kiln -------------------*- C++ -*-===//
//
// Core code is target-neutral: the tile lowering asks a TargetInfo
// (Conversion/TileToLLVM/TargetInfo.h) for vendor ops, and serialization
// (lib/Target/Serialize.cpp) runs LLVM's optimizer and code generator. What
// only one vendor has -- its chips, its LLVM-level dialect and that dialect's
// translation, its LLVM target, checks its code generator would abort on,
// module flags, the names of its artifacts and the external step from
// assembly or object code to the binary the driver loads -- lives in
// third_party/<vendor>/lib/Target behind this interface, registered at start
// up (kiln::registerAllBackends).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_BACKEND_H
#define KILN_TARGET_BACKEND_H

#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Target/Serialize.h"
#include "kiln/Target/Targets.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace llvm {
class Function;
class MCSubtargetInfo;
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace kiln {

class Backend {
public:
  virtual ~Backend();

  /// Short lowercase key, as in KILN_BACKENDS and TargetDesc::backend
  /// ("nvidia").
  virtual llvm::StringRef getKey() const = 0;
  /// The vendor's name in messages ("NVIDIA").
  virtual llvm::StringRef getName() const = 0;
  /// Prefix of the vendor's target names, with the colon ("cuda:").
  virtual llvm::StringRef getTargetPrefix() const = 0;
  /// The chips this backend compiles for.
  virtual llvm::ArrayRef<TargetDesc> getTargets() const = 0;
  /// The chip compiled for when none is named (one of getTargets()).
  virtual llvm::StringRef getDefaultTarget() const = 0;
  /// Prefix of the vendor's LLVM-dialect ops and attributes ("nvvm").
  virtual llvm::StringRef getDialectPrefix() const = 0;
  /// Adds the vendor's LLVM-level dialect and its translation to LLVM IR.
  virtual void registerDialects(mlir::DialectRegistry &registry) const = 0;
  /// Registers the translation of the vendor's dialect to LLVM IR.
  virtual void registerTranslation(mlir::MLIRContext &context) const = 0;
  /// Registers the vendor's passes (kiln-opt flags). The default has none.
  virtual void registerPasses() const {}
  /// Adds the vendor's passes to `stage` of kiln-to-llvm, after core's. A
  /// pass added here must leave modules of other vendors' targets alone
  /// (the pipeline may be built before the target is known). The default
  /// adds none.
  virtual void addPasses(mlir::OpPassManager &pm, PipelineStage stage,
                         const KilnToLLVMOptions &options) const {}
  /// --emit name of the code generator's assembly ("ptx").
  virtual llvm::StringRef getAssemblyName() const = 0;
  /// --emit name of the loadable binary ("cubin").
  virtual llvm::StringRef getBinaryName() const = 0;
  /// Whether the vendor's driver also loads the assembly (compiling it
  /// itself), so a host can run a kernel when the binary's external tool is
  /// missing.
  virtual bool isAssemblyLoadable() const { return false; }
  /// Whether the kernel function takes the user's LLVM function attributes
  /// (the module's `tile.llvm_fn_attrs`, Triton's AMD launch option
  /// `llvm_fn_attrs`); the target's lowering applies them.
  virtual bool takesFunctionAttributes() const { return false; }
  /// Environment variables that choose the external tools makeBinary runs;
  /// they are part of what identifies a compile (cache keys).
  virtual llvm::ArrayRef<llvm::StringRef> getToolEnvironment() const {
    return {};
  }
  /// Registers LLVM's code generator for the vendor (idempotent).
  virtual void initializeLLVMTarget() const = 0;
  /// Rejects LLVM-dialect IR the vendor's code generator would abort on.
  virtual mlir::LogicalResult
  verifyModule(mlir::ModuleOp module, const TargetDesc &target,
               const llvm::MCSubtargetInfo &subtarget) const;
  /// The LLVM subtarget features to compile `module` with: the target's,
  /// raised where the module uses an instruction of a later ISA version.
  virtual std::string getFeatures(mlir::ModuleOp module,
                                  const TargetDesc &target) const;
  /// Adjusts the translated module before optimization (module flags).
  virtual void prepareModule(llvm::Module &module,
                             const TargetDesc &target) const;
  /// Links the device libraries whose functions `llvmModule` declares
  /// (tile.extern_elementwise's symbols) before optimization; an error at
  /// `module` when one is missing. The default links none.
  virtual mlir::LogicalResult
  linkLibraries(mlir::ModuleOp module, llvm::Module &llvmModule,
                const SerializeOptions &opts) const;
  /// The code generator passes (by their legacy pass names) not to run on
  /// `f`: where a pass's choice is wrong for what the function's inline
  /// assembly does.
  virtual llvm::SmallVector<llvm::StringRef>
  skippedCodegenPasses(const llvm::Function &f) const {
    return {};
  }
  /// Whether the code generator gives every 8- and 16-bit value a 32-bit
  /// register of its own, so that Serialize packs a block's narrow phis (a
  /// loop-carried fp8 or f16 tensor) into words after the optimizer
  /// (PackNarrowPhis.h).
  virtual bool packsNarrowPhis() const { return false; }
  /// Whether Serialize merges adjacent scalar memory accesses into vectors
  /// (LLVM's load-store vectorizer) and folds the element extracts and
  /// inserts around them (instcombine, then vector-combine, which turns the
  /// insert chains instcombine leaves into shuffles) after the optimizer, for
  /// a code generator that would otherwise vectorize the accesses only after
  /// instruction selection, leaving byte-wise repacking of the values.
  virtual bool vectorizesMemoryAccesses() const { return false; }
  /// Whether Serialize moves the shared-memory reads of matrix instructions
  /// operands to their first use after the optimizer (SinkSharedLoads.h), for
  /// a code generator whose scheduler leaves them where they are.
  virtual bool sinksSharedLoads() const { return false; }
  /// Whether Serialize moves computations without memory accesses or side
  /// effects down to their first use when that shortens live ranges
  /// (SinkWidening.h), for a code generator whose scheduler leaves a loop's
  /// early conversions of loaded data where the source wrote them.
  virtual bool sinksWidening() const { return false; }
  /// Whether Serialize moves loads whose values are used only after a loop
  /// (and the computations only they read) past the loop
  /// (SinkLoadsPastLoops.h), for a register allocator that would otherwise
  /// spill them before the loop and reload them after it.
  virtual bool sinksLoadsPastLoops() const { return false; }
  /// The sync scope of the fences that the backend's lowering of
  /// tile.barrier (which orders shared-memory accesses only) puts around
  /// the hardware barrier, so that loads of other memory may move past them;
  /// empty when it emits none of its own.
  virtual llvm::StringRef barrierFenceScope() const { return {}; }
  /// Whether makeBinary takes the code generator's object file (true) or
  /// its assembly (false).
  virtual bool binaryFromObject() const = 0;
  /// The loadable binary from the code generator's output.
  virtual mlir::FailureOr<std::string>
  makeBinary(mlir::ModuleOp module, const TargetDesc &target,
             llvm::StringRef codegenOutput,
             const SerializeOptions &options) const = 0;
};

/// Called by each vendor library's registration function; also adds the
/// backend's targets to the target table.
void registerBackend(std::unique_ptr<Backend> backend);
/// The backend with `key`, or null when it is not built in.
const Backend *lookupBackend(llvm::StringRef key);
/// The backend that owns `target` (never null for a registered target).
const Backend *getBackend(const TargetDesc &target);
/// Every registered backend, in registration order.
llvm::SmallVector<const Backend *> getBackends();

} // namespace kiln

#endif
