//===- PipelineLowerLoads.cpp - Stage-0 loads become ring copies ----------===//
//
// Second step of software pipelining. A staged loop is normalized to run
// from 0 by 1, so that slot `j % N` of each ring is an index the barrier and
// async-safety passes follow across iterations. Each tile.load of stage 0
// becomes an async copy into slot `j % N` of an N-slot ring; its readers
// (in stage N-1) read the same slot after a wait on the copies' group.
// The IR stays a valid sequential loop: one iteration copies into a slot,
// waits, and reads it; tile-pipeline-expand then moves the copies N-1
// iterations ahead.
//
//===----------------------------------------------------------------------===//

#include "Pipeline.h"

#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace kiln::tile {
#define GEN_PASS_DEF_TILEPIPELINELOWERLOADSPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

class Lowerer {
public:
  explicit Lowerer(scf::ForOp loop) : loop(loop), body(loop.getBody()) {}

  LogicalResult run() {
    numStages = pipeline::getNumStages(loop);
    last = numStages - 1;
    if (numStages < 2)
      return loop.emitOpError()
             << "has tile.stage ops but no tile.num_stages of at least 2";
    if (std::optional<std::string> why = pipeline::whyNotPipelinable(loop))
      return loop.emitOpError() << "has tile.stage ops but cannot be "
                                   "pipelined: "
                                << *why;
    for (Operation &op : body->without_terminator()) {
      std::optional<int64_t> stage = pipeline::getStage(&op);
      if (!stage || (*stage != 0 && *stage != last))
        return op.emitOpError()
               << "in a staged loop needs tile.stage 0 or " << last;
      int64_t cluster = pipeline::getCluster(&op);
      if (*stage != 0)
        clusterLast = cluster;
      else if (op.getNumRegions() == 0 && isMemoryEffectFree(&op))
        cluster0Pure = std::min(cluster0Pure, cluster);
      else
        cluster0 = std::max(cluster0, cluster);
    }
    pipeline::normalizeLoop(loop);
    SmallVector<LoadOp> loads;
    for (Operation &op : body->without_terminator())
      if (auto load = dyn_cast<LoadOp>(&op); load && *pipeline::getStage(load) == 0)
        loads.push_back(load);
    if (loads.empty())
      return success();
    lower(loads);
    return success();
  }

private:
  template <typename OpT, typename... Args>
  OpT create(OpBuilder &b, int64_t stage, Args &&...args) {
    auto op = OpT::create(b, loop.getLoc(), std::forward<Args>(args)...);
    // The clusters the stager gave (pipeline::clusterOf): a new stage-0 op
    // joins the stage's pure ops or its copies.
    bool pure = op->getNumRegions() == 0 && isMemoryEffectFree(op);
    pipeline::setStage(op, stage,
                       stage != 0 ? clusterLast
                                  : pure ? std::min(cluster0Pure, cluster0)
                                         : cluster0);
    return op;
  }

  void lower(ArrayRef<LoadOp> loads) {
    MLIRContext *ctx = loop.getContext();
    Location loc = loop.getLoc();
    Value j = loop.getInductionVar();
    OpBuilder outside(loop);
    OpBuilder ib = OpBuilder::atBlockBegin(body);
    Value n = arith::ConstantOp::create(
        outside, loc, outside.getIntegerAttr(j.getType(), numStages));
    Value slot0 = create<arith::RemSIOp>(ib, 0, j, n);
    Value slotLast = create<arith::RemSIOp>(ib, last, j, n);
    auto tokenType = AsyncTokenType::get(ctx);

    struct Ring {
      LoadOp load;
      SmallVector<LocalAllocOp> allocs;
      Value ring;
      AsyncCopyGlobalToLocalOp copy;
      Operation *firstReader = nullptr;
    };
    SmallVector<Ring> rings;
    for (LoadOp load : loads) {
      Ring r;
      r.load = load;
      r.allocs = pipeline::getFilledAllocs(load, body);
      MemDescType ringType = pipeline::getRingType(load, body, numStages);
      r.ring = LocalAllocOp::create(outside, load.getLoc(), ringType, Value());
      auto slotType = MemDescType::get(
          ctx, ringType.getShape().drop_front(), ringType.getElementType(),
          ringType.getEncoding(), true, ringType.getShape());
      OpBuilder b(load);
      Value slot = create<MemDescIndexOp>(b, 0, slotType, r.ring, slot0);
      Value other =
          pipeline::isZeroOrAbsent(load.getOther()) ? Value() : load.getOther();
      r.copy = create<AsyncCopyGlobalToLocalOp>(b, 0, tokenType,
                                                load.getPtr(), slot,
                                                load.getMask(), other,
                                                b.getStringAttr(""));
      r.copy->setLoc(load.getLoc());
      // Where the value first arrives: the first local_alloc it fills (so
      // what the program orders after that store, a proxy fence say, comes
      // after the wait) or the first op reading it.
      // A reader nested in a body op (under an scf.if, say) is waited for
      // before that op.
      auto consider = [&](Operation *user) {
        user = body->findAncestorOpInBlock(*user);
        if (user && (!r.firstReader || user->isBeforeInBlock(r.firstReader)))
          r.firstReader = user;
      };
      if (r.allocs.empty())
        for (Operation *user : load->getUsers())
          consider(user);
      for (LocalAllocOp alloc : r.allocs) {
        consider(alloc);
        for (Operation *user : alloc->getUsers())
          consider(user);
      }
      rings.push_back(r);
    }
    // One commit group per iteration when every read follows every copy;
    // otherwise one group (and one wait) per load.
    Operation *lastCopy = rings.back().copy;
    bool oneGroup = llvm::all_of(rings, [&](const Ring &r) {
      return !r.firstReader || lastCopy->isBeforeInBlock(r.firstReader);
    });
    SmallVector<std::pair<Value, Operation *>> groups; // token, first reader
    if (oneGroup) {
      SmallVector<Value> tokens;
      Operation *first = nullptr;
      for (Ring &r : rings) {
        tokens.push_back(r.copy.getToken());
        if (r.firstReader && (!first || r.firstReader->isBeforeInBlock(first)))
          first = r.firstReader;
      }
      OpBuilder b(lastCopy->getNextNode());
      Value group = create<AsyncCommitGroupOp>(b, 0, tokenType, tokens);
      groups.push_back({group, first});
    } else {
      for (Ring &r : rings) {
        OpBuilder b(r.copy->getNextNode());
        Value group = create<AsyncCommitGroupOp>(
            b, 0, tokenType, ValueRange{r.copy.getToken()});
        groups.push_back({group, r.firstReader});
      }
    }
    // Copies first with the addresses in a cluster of their own (the
    // stager's order): the waits join that cluster, so they sort before this
    // iteration's copies. The barrier that must precede the refill (the slot
    // was read one iteration ago) then also publishes the landed slot, and
    // one barrier an iteration suffices instead of two (one before the
    // copies, one after the wait).
    bool waitsFirst = clusterLast > cluster0 && cluster0Pure < cluster0;
    for (auto [group, reader] : groups) {
      if (!reader)
        continue;
      OpBuilder b(reader);
      auto wait = create<AsyncWaitOp>(b, last, tokenType, ValueRange{group},
                                      IntegerAttr(), IntegerAttr());
      if (waitsFirst)
        pipeline::setStage(wait, last, cluster0Pure);
    }
    // Readers read the slot of their own iteration.
    for (Ring &r : rings) {
      if (!r.firstReader) {
        r.load.erase();
        continue;
      }
      OpBuilder b(r.firstReader);
      auto slotType = cast<MemDescType>(r.copy.getDst().getType());
      Value slot = create<MemDescIndexOp>(b, last, slotType, r.ring, slotLast);
      if (r.allocs.empty()) {
        Value value = create<LocalLoadOp>(b, last, r.load.getType(), slot);
        r.load.replaceAllUsesWith(value);
      }
      for (LocalAllocOp alloc : r.allocs) {
        alloc.replaceAllUsesWith(slot);
        alloc.erase();
      }
      pipeline::retypeViews(slot);
      r.load.erase();
    }
    // After the loop nothing may still be copying (a predicated-off copy
    // writes zeros), and the rings end.
    OpBuilder after(loop->getNextNode());
    AsyncWaitOp::create(after, loc, tokenType, ValueRange{},
                        after.getI32IntegerAttr(0), IntegerAttr());
    for (Ring &r : rings)
      LocalDeallocOp::create(after, loc, r.ring);
    pipeline::stageOpsBeside(loop);
  }

  scf::ForOp loop;
  Block *body;
  /// Clusters of stage 0's ops with effects (the loads) and pure ops, and of
  /// the last stage's ops.
  int64_t numStages = 0, last = 0, cluster0 = 0,
          cluster0Pure = std::numeric_limits<int64_t>::max(), clusterLast = 1;
};

struct TilePipelineLowerLoadsPass
    : public tile::impl::TilePipelineLowerLoadsPassBase<
          TilePipelineLowerLoadsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (pipeline::isStaged(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(Lowerer(loop).run()))
        return signalPassFailure();
  }
};

} // namespace
