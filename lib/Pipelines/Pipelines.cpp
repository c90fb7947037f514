//===- Pipelines.cpp - Kiln's compile pipelines ---------------------------===//

#include "kiln/Pipelines/Pipelines.h"

#include "kiln/Conversion/Passes.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Target/Backend.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace kiln;

/// Core's passes of one stage.
static void addCorePasses(OpPassManager &pm, PipelineStage stage,
                          const KilnToLLVMOptions &options) {
  switch (stage) {
  case PipelineStage::Layouts: {
    // Layouts the kernel left to the compiler are chosen before anything
    // reads layouts.
    tile::TileResolveLayoutsPassOptions layouts;
    layouts.target = options.target;
    pm.addPass(tile::createTileResolveLayoutsPass(layouts));
    // Then tensors split among a cluster's CTAs become one CTA's part.
    pm.addPass(tile::createTileSplitClusterPass());
    return;
  }
  case PipelineStage::Schedule:
    // Software pipelining of loops with num_stages, in three replayable
    // steps (the schedule lives in tile.stage / tile.cluster between them).
    pm.addPass(tile::createTilePipelineAssignStagesPass());
    pm.addPass(tile::createTilePipelineLowerLoadsPass());
    pm.addPass(tile::createTilePipelineExpandPass());
    return;
  case PipelineStage::AsyncChecks: {
    // The check reads the group counts of waits on tokens.
    tile::TileInsertWaitCountsPassOptions waits;
    waits.target = options.target;
    pm.addPass(tile::createTileInsertWaitCountsPass(waits));
    pm.addPass(tile::createTileCheckAsyncSafetyPass());
    return;
  }
  case PipelineStage::SharedMemory: {
    tile::TileAllocateSharedMemoryPassOptions alloc;
    alloc.target = options.target;
    pm.addPass(tile::createTileAllocateSharedMemoryPass(alloc));
    tile::TileInsertBarriersPassOptions barriers;
    barriers.target = options.target;
    pm.addPass(tile::createTileInsertBarriersPass(barriers));
    pm.addPass(tile::createTileAnnotateLocalLoadAliasPass());
    return;
  }
  case PipelineStage::PreLowering: {
    TileTagTensorDescParamsPassOptions descs;
    descs.target = options.target;
    pm.addPass(createTileTagTensorDescParamsPass(descs));
    TilePrepareWarpSpecializePassOptions ws;
    ws.target = options.target;
    ws.numWarps = options.numWarps;
    pm.addPass(createTilePrepareWarpSpecializePass(ws));
    return;
  }
  case PipelineStage::Lowering: {
    pm.addPass(createSCFToControlFlowPass());
    ConvertTileToLLVMPassOptions lower;
    lower.target = options.target;
    lower.numWarps = options.numWarps;
    pm.addPass(createConvertTileToLLVMPass(lower));
    TileLowerWarpSpecializePassOptions ws;
    ws.target = options.target;
    ws.numWarps = options.numWarps;
    pm.addPass(createTileLowerWarpSpecializePass(ws));
    return;
  }
  case PipelineStage::Cleanup:
    pm.addPass(createReconcileUnrealizedCastsPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    return;
  }
}

void kiln::buildKilnToLLVMPipeline(OpPassManager &pm,
                                   const KilnToLLVMOptions &options) {
  // The backends that add passes: the target's, when the options name one
  // (an unknown name is convert-tile-to-llvm's error to report), else all.
  SmallVector<const Backend *> backends;
  if (!options.target.empty()) {
    if (const TargetDesc *desc = lookupTarget(options.target))
      backends.push_back(getBackend(*desc));
  } else {
    backends = getBackends();
  }
  for (PipelineStage stage :
       {PipelineStage::Layouts, PipelineStage::Schedule,
        PipelineStage::AsyncChecks, PipelineStage::SharedMemory,
        PipelineStage::PreLowering, PipelineStage::Lowering,
        PipelineStage::Cleanup}) {
    addCorePasses(pm, stage, options);
    for (const Backend *backend : backends)
      backend->addPasses(pm, stage, options);
  }
}

void kiln::registerKilnPipelines() {
  PassPipelineRegistration<KilnToLLVMOptions>(
      "kiln-to-llvm", "Lower tile IR to the LLVM dialect for one target",
      buildKilnToLLVMPipeline);
}
