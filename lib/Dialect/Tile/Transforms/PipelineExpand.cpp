//===- PipelineExpand.cpp - Staged loops through upstream's pipeliner -----===//
//
// Last step of software pipelining: the schedule in tile.stage /
// tile.cluster goes to mlir::scf::pipelineForLoop (LLVM 22), called, not
// forked (pipeline::expandStagedLoop in Pipeline.cpp, which backends that
// build their own rings call too). Dynamic trip counts, epilogue not
// peeled: the kernel loop runs every iteration and predicates its early
// stages in the last N-1; the prologue's N-1 iterations are predicated too.
// Only stage 0 is ever predicated: pure ops, async copies (through their
// mask), commits, and ops with a predicate operand.
//
//===----------------------------------------------------------------------===//

#include "Pipeline.h"

#include "kiln/Dialect/Tile/Transforms/Passes.h"


namespace kiln::tile {
#define GEN_PASS_DEF_TILEPIPELINEEXPANDPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct TilePipelineExpandPass
    : public tile::impl::TilePipelineExpandPassBase<TilePipelineExpandPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (pipeline::isStaged(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(pipeline::expandStagedLoop(loop)))
        return signalPassFailure();
  }
};

} // namespace
