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

/// The named stages of kiln-to-llvm, in order. Each runs core's passes, then
/// those the target's backend adds (Backend::addPasses), so a vendor pass --
/// one that creates the vendor's ops, say -- is a new file in
/// third_party/<vendor>, not a change to the pipeline.
enum class PipelineStage {
  /// Layouts the kernel left to the compiler are chosen; a cluster's tensors
  /// become one CTA's part (tile-resolve-layouts, tile-split-cluster).
  Layouts,
  /// Loop transformations that create asynchronous work: software
  /// pipelining of num_stages loops (tile-pipeline-assign-stages,
  /// tile-pipeline-lower-loads, tile-pipeline-expand).
  Schedule,
  /// Asynchronous work is counted and checked (tile-insert-wait-counts,
  /// tile-check-async-safety).
  AsyncChecks,
  /// Shared memory is placed and ordered (tile-allocate-shared-memory,
  /// tile-insert-barriers, tile-annotate-local-load-alias).
  SharedMemory,
  /// The last tile-level preparation before the lowering
  /// (tile-tag-tensor-desc-params, tile-prepare-warp-specialize; a backend's:
  /// the global scratch argument of device-side TMA descriptors).
  PreLowering,
  /// tile -> LLVM dialect (scf-to-cf, convert-tile-to-llvm,
  /// tile-lower-warp-specialize; a backend's: the last rewrites of its
  /// LLVM-level ops before translation).
  Lowering,
  /// reconcile-unrealized-casts, canonicalize, cse.
  Cleanup,
};

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
/// tile.shared (bytes). The stages of PipelineStage in order; with a target
/// named in the options only its backend adds passes, otherwise every
/// built-in backend does (their passes leave other vendors' modules alone).
void buildKilnToLLVMPipeline(mlir::OpPassManager &pm,
                             const KilnToLLVMOptions &options);

void registerKilnPipelines();

} // namespace kiln

#endif
