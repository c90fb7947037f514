//===- Pipelines.cpp - Kiln's compile pipelines ---------------------------===//

#include "kiln/Pipelines/Pipelines.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void kiln::buildKilnToLLVMPipeline(OpPassManager &pm,
                                   const KilnToLLVMOptions &options) {
  tile::TileAllocateSharedMemoryPassOptions alloc;
  alloc.target = options.target;
  tile::TileInsertWaitCountsPassOptions waits;
  waits.target = options.target;
  // Layouts the kernel left to the compiler are chosen before anything
  // reads layouts.
  tile::TileResolveLayoutsPassOptions layouts;
  layouts.target = options.target;
  pm.addPass(tile::createTileResolveLayoutsPass(layouts));
  // Then tensors split among a cluster's CTAs become one CTA's part.
  pm.addPass(tile::createTileSplitClusterPass());
  // The check reads the group counts of waits on tokens.
  pm.addPass(tile::createTileInsertWaitCountsPass(waits));
  pm.addPass(tile::createTileCheckAsyncSafetyPass());
  pm.addPass(tile::createTileAllocateSharedMemoryPass(alloc));
  tile::TileInsertBarriersPassOptions barriers;
  barriers.target = options.target;
  pm.addPass(tile::createTileInsertBarriersPass(barriers));
  pm.addPass(tile::createTileAnnotateLocalLoadAliasPass());
  pm.addPass(createSCFToControlFlowPass());
  ConvertTileToLLVMPassOptions lower;
  lower.target = options.target;
  lower.numWarps = options.numWarps;
  pm.addPass(createConvertTileToLLVMPass(lower));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void kiln::registerKilnPipelines() {
  PassPipelineRegistration<KilnToLLVMOptions>(
      "kiln-to-llvm", "Lower tile IR to the LLVM dialect for one target",
      buildKilnToLLVMPipeline);
}
