//===- PipelineExpand.cpp - Staged loops through upstream's pipeliner -----===//
//
// Last step of software pipelining: the schedule in tile.stage /
// tile.cluster goes to mlir::scf::pipelineForLoop (LLVM 22), called, not
// forked. Dynamic trip counts, epilogue not peeled: the kernel loop runs
// every iteration and predicates its early stages in the last N-1; the
// prologue's N-1 iterations are predicated too. Only stage 0 is ever
// predicated, and tile-pipeline-assign-stages put only pure ops and loads
// (now async copies and their commit) there.
//
//===----------------------------------------------------------------------===//

#include "Pipeline.h"

#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace kiln::tile {
#define GEN_PASS_DEF_TILEPIPELINEEXPANDPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// `op` executed only where `pred` holds (nullptr: cannot be predicated).
Operation *predicate(RewriterBase &rewriter, Operation *op, Value pred) {
  if (isa<AsyncCommitGroupOp>(op))
    return op; // an empty group keeps every iteration at one group
  if (auto copy = dyn_cast<AsyncCopyGlobalToLocalOp>(op)) {
    rewriter.setInsertionPoint(copy);
    auto ptrType = cast<RankedTensorType>(copy.getPtr().getType());
    auto maskType = RankedTensorType::get(
        ptrType.getShape(), rewriter.getI1Type(), ptrType.getEncoding());
    Value mask = SplatOp::create(rewriter, copy.getLoc(), maskType, pred);
    if (copy.getMask())
      mask = arith::AndIOp::create(rewriter, copy.getLoc(), copy.getMask(),
                                   mask);
    auto masked = AsyncCopyGlobalToLocalOp::create(
        rewriter, copy.getLoc(), copy.getToken().getType(), copy.getPtr(),
        copy.getDst(), mask, copy.getOther(), copy.getCacheModifierAttr());
    masked->setDiscardableAttrs(copy->getDiscardableAttrDictionary());
    rewriter.replaceOp(copy, masked);
    return masked;
  }
  if (op->getNumRegions() == 0 && isMemoryEffectFree(op))
    return op;
  return nullptr;
}

void annotate(Operation *op, scf::PipeliningOption::PipelinerPart part,
              unsigned) {
  if (!isa<AsyncCopyGlobalToLocalOp, AsyncCommitGroupOp, AsyncWaitOp>(op))
    return;
  MLIRContext *ctx = op->getContext();
  StringRef name =
      part == scf::PipeliningOption::PipelinerPart::Prologue ? "prologue"
                                                              : "kernel";
  TileDialect::PipelinePartAttrHelper(ctx).setAttr(
      op, StringAttr::get(ctx, name));
}

LogicalResult expand(scf::ForOp loop) {
  MLIRContext *ctx = loop.getContext();
  std::vector<std::pair<Operation *, unsigned>> schedule;
  for (Operation &op : loop.getBody()->without_terminator())
    schedule.push_back({&op, unsigned(*pipeline::getStage(&op))});
  std::stable_sort(schedule.begin(), schedule.end(),
                   [](const auto &a, const auto &b) {
                     return pipeline::getCluster(a.first) <
                            pipeline::getCluster(b.first);
                   });
  scf::PipeliningOption options;
  options.getScheduleFn =
      [&](scf::ForOp, std::vector<std::pair<Operation *, unsigned>> &s) {
        s = schedule;
      };
  options.annotateFn = annotate;
  options.peelEpilogue = false;
  options.supportDynamicLoops = true;
  options.predicateFn = predicate;

  // The index arithmetic the expansion creates is folded afterwards.
  struct Collector : public RewriterBase::Listener {
    llvm::SetVector<Operation *> created;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      if (isa<arith::ArithDialect>(op->getDialect()))
        created.insert(op);
    }
    void notifyOperationErased(Operation *op) override { created.remove(op); }
  } collector;
  auto func = loop->getParentOfType<FunctionOpInterface>();
  Location loc = loop.getLoc();
  IRRewriter rewriter(ctx, &collector);
  rewriter.setInsertionPoint(loop);
  bool modified = false;
  FailureOr<scf::ForOp> result =
      scf::pipelineForLoop(rewriter, loop, options, &modified);
  if (failed(result)) {
    if (modified)
      return emitError(loc) << "the loop expander failed after changing the "
                               "loop; the module is left inconsistent";
    emitRemark(loc) << "loop not pipelined: the loop expander refused its "
                       "schedule";
    for (Operation &op : loop.getBody()->without_terminator()) {
      op.removeDiscardableAttr(TileDialect::StageAttrHelper::getNameStr());
      op.removeDiscardableAttr(TileDialect::ClusterAttrHelper::getNameStr());
    }
    return success();
  }
  func->walk([&](Operation *op) {
    op->removeDiscardableAttr(TileDialect::StageAttrHelper::getNameStr());
    op->removeDiscardableAttr(TileDialect::ClusterAttrHelper::getNameStr());
  });
  result->getOperation()->removeDiscardableAttr(
      TileDialect::NumStagesAttrHelper::getNameStr());
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(collector.created.takeVector(),
                                FrozenRewritePatternSet(),
                                config);
  return success();
}

struct TilePipelineExpandPass
    : public tile::impl::TilePipelineExpandPassBase<TilePipelineExpandPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (pipeline::isStaged(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(expand(loop)))
        return signalPassFailure();
  }
};

} // namespace
