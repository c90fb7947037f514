//===- FencePipelinedReads.cpp - Proxy fences in pipelined loops ----------===//
//
// tile-nv-fence-pipelined-reads (Passes.td): cp.async writes shared memory
// through the generic proxy, wgmma reads it through the async proxy. Where
// the pipeliner's wait (a tile.async_wait it tagged tile.pipeline_part) is
// followed in its block by an asynchronous read, each thread makes its
// landed copies visible to the async proxy right after the wait:
// `tile_nv.fence_async_shared`, before the barrier tile-insert-barriers
// adds ahead of the read, unless a fence already follows the wait there.
// The pipeliner itself stays vendor-neutral.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"
#include "kiln/Dialect/TileNV/Transforms/Passes.h"

namespace kiln::tile_nv {
#define GEN_PASS_DEF_TILENVFENCEPIPELINEDREADSPASS
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
} // namespace kiln::tile_nv

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct FencePipelinedReads
    : tile_nv::impl::TileNVFencePipelinedReadsPassBase<FencePipelinedReads> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    if (!context->target || context->target->backend != "nvidia")
      return;
    SmallVector<AsyncWaitOp> waits;
    module.walk([&](AsyncWaitOp wait) {
      if (TileDialect::PipelinePartAttrHelper(&getContext()).getAttr(wait))
        waits.push_back(wait);
    });
    for (AsyncWaitOp wait : waits) {
      bool asyncRead = false;
      for (Operation *op = wait->getNextNode(); op && !asyncRead;
           op = op->getNextNode()) {
        // A later wait, or a fence already there (the user's), ends the
        // search.
        if (isa<AsyncWaitOp, AsyncProxyFenceOpInterface>(op))
          break;
        asyncRead = isa<AsyncReadOpInterface>(op);
      }
      if (!asyncRead)
        continue;
      OpBuilder b(wait->getContext());
      b.setInsertionPointAfter(wait);
      tile_nv::FenceAsyncSharedOp::create(b, wait.getLoc(), false);
    }
  }
};

} // namespace
