//===- Libdevice.h - Linking NVIDIA's libdevice ---------------------------===//

#ifndef KILN_NVIDIA_TARGET_LIBDEVICE_H
#define KILN_NVIDIA_TARGET_LIBDEVICE_H

#include "kiln/Target/Serialize.h"

#include "mlir/IR/BuiltinOps.h"

namespace llvm {
class Module;
} // namespace llvm

namespace kiln {

/// Links the functions of NVIDIA's libdevice that `llvmModule` declares
/// (`__nv_*`, from tile.extern_elementwise) into it, internal, with
/// flush-to-zero on for its __nvvm_reflect queries (as Triton). The bitcode is the
/// CUDA toolkit's: the serialize option's "libdevice" path, else
/// $KILN_LIBDEVICE, else nvvm/libdevice/libdevice.10.bc under $CUDA_HOME,
/// beside the ptxas on PATH, or under /usr/local/cuda. Nothing is read
/// when no such function is declared.
mlir::LogicalResult linkLibdevice(mlir::ModuleOp module,
                                  llvm::Module &llvmModule,
                                  const SerializeOptions &opts);

} // namespace kiln

#endif
