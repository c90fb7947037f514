//===- PipelineWGMMA.cpp - Keep one wgmma in flight in pipelined loops ----===//
//
// tile-nv-pipeline-wgmma (Passes.td): in a loop the pipeliner expanded, a
// synchronous wgmma that only accumulates into a loop-carried value becomes
// asynchronous, followed by `warpgroup_dot_wait {pendings = 1}`: the wgmma
// of iteration i overlaps iteration i+1's wait and copies, and the one of
// i-1 has finished reading its ring slot before the copies of iteration i
// refill that slot (the pipeliner orders a loop with wgmma reads "consumers
// first"). After the loop a wait with pendings 0. tile-check-async-safety
// judges the result like any hand-written ring.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"
#include "kiln/Dialect/TileNV/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln::tile_nv {
#define GEN_PASS_DEF_TILENVPIPELINEWGMMAPASS
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
} // namespace kiln::tile_nv

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// Whether the pipeliner expanded `loop` (its kernel part).
bool isPipelinedKernel(scf::ForOp loop) {
  auto part = TileDialect::PipelinePartAttrHelper(loop.getContext());
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto p = part.getAttr(&op); p && p.getValue() == "kernel")
      return true;
  return false;
}

} // namespace

tile_nv::WarpGroupDotOp kiln::tile_nv::dotKeptInFlight(scf::ForOp loop) {
  Block *body = loop.getBody();
  SmallVector<tile_nv::WarpGroupDotOp> dots;
  bool nested = false;
  loop.walk([&](tile_nv::WarpGroupDotOp dot) {
    if (dot->getBlock() == body)
      dots.push_back(dot);
    else
      nested = true;
  });
  if (dots.size() != 1 || nested || dots.front().getIsAsync())
    return {};
  tile_nv::WarpGroupDotOp dot = dots.front();
  auto acc = dyn_cast<BlockArgument>(dot.getC());
  if (!acc || acc.getOwner() != body || acc == loop.getInductionVar() ||
      !acc.hasOneUse() || !dot->hasOneUse())
    return {};
  unsigned index = acc.getArgNumber() - 1;
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  if (yield.getOperand(index) != dot.getD())
    return {};
  // Any other wgmma wait in the loop would count this group too.
  bool otherWaits = false;
  loop.walk([&](tile_nv::WarpGroupDotWaitOp) { otherWaits = true; });
  return otherWaits ? tile_nv::WarpGroupDotOp() : dot;
}

namespace {

void keepInFlight(scf::ForOp loop, int numWarps) {
  tile_nv::WarpGroupDotOp dot = tile_nv::dotKeptInFlight(loop);
  if (!dot)
    return;
  unsigned index = cast<BlockArgument>(dot.getC()).getArgNumber() - 1;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  OpBuilder b(dot);
  dot.setIsAsync(true);
  b.setInsertionPointAfter(dot);
  auto wait = tile_nv::WarpGroupDotWaitOp::create(
      b, dot.getLoc(), TypeRange{dot.getType()}, ValueRange{dot.getD()},
      b.getI32IntegerAttr(1));
  yield.setOperand(index, wait.getResult(0));
  // The wait retires only this warpgroup's wgmma of the last iteration;
  // another warpgroup's may still read the slot this iteration's copies
  // refill until every thread has passed a barrier after its wait
  // (tile-check-async-safety checks it: getAsyncReadGroupThreads;
  // tile-insert-barriers does not add it).
  if (numWarps > 4)
    BarrierOp::create(b, dot.getLoc());
  Value result = loop.getResult(index);
  b.setInsertionPointAfter(loop);
  auto drain = tile_nv::WarpGroupDotWaitOp::create(
      b, dot.getLoc(), TypeRange{result.getType()}, ValueRange{result},
      b.getI32IntegerAttr(0));
  result.replaceAllUsesExcept(drain.getResult(0), drain);
}

struct PipelineWGMMA
    : tile_nv::impl::TileNVPipelineWGMMAPassBase<PipelineWGMMA> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/false);
    if (failed(context))
      return signalPassFailure();
    if (!context->target || context->target->backend != "nvidia")
      return;
    SmallVector<scf::ForOp> loops;
    module.walk([&](scf::ForOp loop) {
      if (isPipelinedKernel(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      keepInFlight(loop, context->numWarps);
  }
};

} // namespace
