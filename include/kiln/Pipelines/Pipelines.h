//===- Pipelines.h - Kiln's compile pipelines -------------------*- C++ -*-===//
//
// Pipelines are C++ builders registered once, so `kiln-opt --kiln-to-llvm=...`
// and the Python compiler run exactly the same passes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINES_PIPELINES_H
#define KILN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace kiln {

struct KilnToLLVMOptions : public mlir::PassPipelineOptions<KilnToLLVMOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target name (default: the module's "
                     "tile.target)"),
      llvm::cl::init("")};
  Option<int> numWarps{
      *this, "num-warps",
      llvm::cl::desc("Warps per CTA (default: tile.num_warps)"),
      llvm::cl::init(0)};
};

/// tile IR (verified, layouts explicit) -> LLVM dialect with the target
/// backend's LLVM-level ops, ready for kiln-translate. Pre: every tensor has a
/// distributed layout. Post: only llvm and the backend's ops; module has
/// tile.shared (bytes).
void buildKilnToLLVMPipeline(mlir::OpPassManager &pm,
                             const KilnToLLVMOptions &options);

void registerKilnPipelines();

} // namespace kiln

#endif
