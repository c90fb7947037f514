//===- PipelineTMA.cpp - TMA rings for num_stages loops -------------------===//
//
// tile-nv-pipeline-tma (Passes.td): the TMA form of software pipelining.
// A num_stages loop written the simple way -- one mbarrier, `expect`, TMA
// copies into whole buffers allocated before the loop, a wait on the
// barrier, then the reads -- becomes an N-slot ring: the buffers and the
// barrier get N slots (the barrier's init and invalidate are repeated per
// slot), the expect and copies of iteration j go to slot j % N in stage 0,
// the wait (at parity (j / N) & 1) and the reads to stage N-1. Staging,
// normalization and expansion are core's (Pipelining.h), so the expanded
// loop is checked like every other ring.
//
// A ring that several warpgroups read, each with reads finished by the
// end of the iteration, also gets an "empty" barrier per slot: every warp
// arrives on slot j % N's after its reads (a per-warp arrival), and the
// refill of that slot N iterations later waits for the phase those
// arrivals complete, in the elected thread's warp only. The refill then
// needs no CTA barrier (the barrier pass takes the wait as ordering the
// released reads before that thread's copies), so the warps need not meet
// every iteration; with two stages it goes first in the iteration, issued
// as soon as the previous iteration's reads are done.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/Tile/Transforms/Pipelining.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"
#include "kiln/Dialect/TileNV/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln::tile_nv {
#define GEN_PASS_DEF_TILENVPIPELINETMAPASS
#include "kiln/Dialect/TileNV/Transforms/Passes.h.inc"
} // namespace kiln::tile_nv

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

namespace {

/// A whole buffer allocated (uninitialized) outside `loop`.
LocalAllocOp outsideAllocation(Value v, scf::ForOp loop) {
  auto alloc = v.getDefiningOp<LocalAllocOp>();
  if (!alloc || alloc.getSrc() || !loop.isDefinedOutsideOfLoop(v))
    return {};
  return alloc;
}

MemDescType ringOf(MemDescType t, int64_t n) {
  SmallVector<int64_t> shape{n};
  llvm::append_range(shape, t.getShape());
  return MemDescType::get(t.getContext(), shape, t.getElementType(),
                          t.getEncoding(), true, shape);
}

MemDescType slotOf(MemDescType ring) {
  return MemDescType::get(ring.getContext(), ring.getShape().drop_front(),
                          ring.getElementType(), ring.getEncoding(), true,
                          ring.getShape());
}

class TMAPipeliner {
public:
  TMAPipeliner(scf::ForOp loop, int numWarps)
      : loop(loop), body(loop.getBody()),
        numStages(pipeline::getNumStages(loop)),
        numWarps(lookupNumWarps(loop, numWarps)) {}

  LogicalResult run() {
    if (std::optional<std::string> why = match()) {
      loop.emitRemark() << "loop not pipelined: " << *why;
      return success();
    }
    rewrite();
    Operation *parent = loop->getParentOp();
    if (failed(pipeline::expandStagedLoop(loop)))
      return failure();
    // The prologue fills slots 0 .. N-2, whose empty barriers are fresh: a
    // wait for parity 1 there returns at once, so it goes.
    if (releaseSlots) {
      auto part = TileDialect::PipelinePartAttrHelper(parent->getContext());
      auto unpredicated =
          TileDialect::UnpredicatedAttrHelper(parent->getContext());
      SmallVector<MBarrierWaitOp> prologue;
      parent->walk([&](MBarrierWaitOp w) {
        if (unpredicated.isAttrPresent(w) && part.getAttr(w) &&
            part.getAttr(w).getValue() == "prologue")
          prologue.push_back(w);
      });
      for (MBarrierWaitOp w : prologue)
        w.erase();
    }
    return success();
  }

private:
  /// Why the loop is not the simple TMA form, if it is not.
  std::optional<std::string> match() {
    if (std::optional<std::string> why = pipeline::whyNotPipelinable(loop))
      return why;
    for (Operation &op : body->without_terminator()) {
      if (auto e = dyn_cast<MBarrierExpectOp>(op)) {
        if (expect)
          return std::string("it arms its barrier more than once per "
                             "iteration");
        expect = e;
      } else if (auto c = dyn_cast<AsyncTMACopyGlobalToLocalOp>(op)) {
        // A deeper ring would refill the other CTAs' slots before they
        // are done with them: only they know, and the ring waits on none
        // of their barriers.
        if (c.getMulticast())
          return std::string("a TMA copy multicasts into other CTAs of the "
                             "cluster");
        copies.push_back(c);
      } else if (auto w = dyn_cast<MBarrierWaitOp>(op)) {
        if (wait)
          return std::string("it waits on barriers more than once per "
                             "iteration");
        wait = w;
      } else if (isa<BarrierInitOpInterface, BarrierInvalidateOpInterface,
                     BarrierArriveOpInterface>(op)) {
        return "it has a '" + op.getName().getStringRef().str() +
               "' besides the expect, the copies and the wait";
      } else if (op.getNumRegions()) {
        bool nested = false;
        op.walk([&](Operation *inner) {
          nested |= isa<BarrierCompletedWriteOpInterface,
                        BarrierWaitOpInterface, BarrierArriveOpInterface>(
              inner);
        });
        if (nested)
          return std::string("a TMA copy or barrier op is inside a nested "
                             "region");
      }
    }
    if (!expect || copies.empty() || !wait)
      return std::string("it is not one expect, TMA copies and a wait on "
                         "one barrier");
    Value bar = wait.getBarrier();
    barAlloc = outsideAllocation(bar, loop);
    if (!barAlloc)
      return std::string("its barrier is not one allocated before the loop");
    if (expect.getBarrier() != bar || !expect->isBeforeInBlock(wait))
      return std::string("the expect is not on the waited barrier, before "
                         "the wait");
    for (AsyncTMACopyGlobalToLocalOp c : copies) {
      if (c.getBarrier() != bar || !c->isBeforeInBlock(wait))
        return std::string("a TMA copy does not complete on the waited "
                           "barrier before the wait");
      LocalAllocOp buf = outsideAllocation(c.getResult(), loop);
      if (!buf)
        return std::string("a TMA copy's destination is not a whole buffer "
                           "allocated before the loop");
      if (llvm::is_contained(bufs, buf))
        return std::string("two TMA copies write one buffer");
      bufs.push_back(buf);
    }
    // The buffers are read only in the loop, after the wait.
    for (LocalAllocOp buf : bufs)
      for (OpOperand &use : buf->getUses()) {
        Operation *user = body->findAncestorOpInBlock(*use.getOwner());
        if (!user)
          return std::string("a TMA destination is used outside the loop");
        if (isa<AsyncTMACopyGlobalToLocalOp>(user))
          continue;
        if (!wait->isBeforeInBlock(user))
          return std::string("a TMA destination is read before the wait");
        if (!isa<LocalLoadOp>(user))
          copiesFirst = false;
        if (!pipeline::viewsFollowSlot(buf))
          return std::string("a TMA destination has views other than "
                             "permutes and subslices");
      }
    // The barrier: one init before the loop, invalidates after it.
    for (Operation *user : barAlloc->getUsers()) {
      if (body->findAncestorOpInBlock(*user))
        continue;
      if (auto i = dyn_cast<MBarrierInitOp>(user);
          i && !init && i->getBlock() == loop->getBlock() &&
          i->isBeforeInBlock(loop)) {
        init = i;
        continue;
      }
      if (auto inv = dyn_cast<MBarrierInvalidateOp>(user);
          inv && inv->getBlock() == loop->getBlock() &&
          loop->isBeforeInBlock(inv)) {
        invalidates.push_back(inv);
        continue;
      }
      return "its barrier has a '" + user->getName().getStringRef().str() +
             "' outside the loop besides one init before it and "
             "invalidates after it";
    }
    if (!init)
      return std::string("its barrier is not initialized before the loop");
    // Issued num_stages - 1 iterations early, a copy must not read what the
    // loop writes in between (descriptors have no address form: a write
    // through the descriptor's own pointer argument, or one Kiln cannot
    // trace, may).
    for (AsyncTMACopyGlobalToLocalOp c : copies)
      if (std::optional<std::string> why = pipeline::whyWritesBlockMove(
              loop, c.getDesc(), numStages, wait, "a TMA copy"))
        return why;
    releaseSlots = slotsReleasedByWarps();
    // Released slots are free once the previous iteration's reads are. With
    // two stages the refills go first in the iteration, a whole iteration
    // earlier than after its reads (else the copy has no iteration to land
    // in: the attention at head dim 256 ran 0.95-1.02x the hand kernel
    // this way, 0.77x after the reads); with more, after them (measured
    // 3-8 % faster at head dims 64 and 128).
    if (releaseSlots && numStages == 2)
      copiesFirst = true;
    // The expect and copies, with their operands' pure ops, go to stage 0.
    std::string why;
    stage0.insert(expect);
    if (failed(pipeline::sliceOperands(loop, expect, stage0, why)))
      return why;
    for (AsyncTMACopyGlobalToLocalOp c : copies) {
      stage0.insert(c);
      if (failed(pipeline::sliceOperands(loop, c, stage0, why)))
        return why;
    }
    return std::nullopt;
  }

  /// Whether every warp may release the ring's slots itself: more than one
  /// warpgroup reads them (with one, the CTA barrier before a refill costs
  /// little), every read is done when the reading op returns (a local load
  /// or a synchronous wgmma: nothing still reads a slot at the iteration's
  /// end), and tile-nv-pipeline-wgmma will not keep a wgmma in flight
  /// across iterations (its loop keeps the CTA barrier).
  bool slotsReleasedByWarps() {
    if (numWarps <= 4 || tile_nv::dotKeptInFlight(loop))
      return false;
    std::function<bool(Value)> syncReads = [&](Value view) {
      return llvm::all_of(view.getUsers(), [&](Operation *user) {
        if (isa<AsyncTMACopyGlobalToLocalOp, LocalLoadOp>(user))
          return true;
        if (auto read = dyn_cast<AsyncReadOpInterface>(user))
          return !read.isAsyncReadInFlight();
        if (isa<MemDescPermuteOp, MemDescSubsliceOp>(user))
          return syncReads(user->getResult(0));
        return false;
      });
    };
    return llvm::all_of(bufs, [&](LocalAllocOp buf) {
      return syncReads(buf.getResult());
    });
  }

  template <typename OpT, typename... Args>
  OpT staged(OpBuilder &b, int64_t stage, Args &&...args) {
    auto op = OpT::create(b, loop.getLoc(), std::forward<Args>(args)...);
    pipeline::setStage(op, stage,
                       pipeline::clusterOf(op, stage == 0, copiesFirst));
    return op;
  }

  void rewrite() {
    Location loc = loop.getLoc();
    int64_t last = numStages - 1;
    // Rings of the buffers and of the barrier; the barrier's init and
    // invalidates repeated per slot.
    OpBuilder b(loop);
    SmallVector<Value> rings;
    for (LocalAllocOp buf : bufs)
      rings.push_back(LocalAllocOp::create(
          b, buf.getLoc(), ringOf(buf.getType(), numStages), Value()));
    b.setInsertionPoint(init);
    auto barRingType = ringOf(barAlloc.getType(), numStages);
    Value barRing =
        LocalAllocOp::create(b, barAlloc.getLoc(), barRingType, Value());
    auto slotAt = [&](OpBuilder &ob, Value ring, int64_t s) {
      Value idx = arith::ConstantOp::create(ob, loc, ob.getI32IntegerAttr(s));
      return MemDescIndexOp::create(
          ob, loc, slotOf(cast<MemDescType>(ring.getType())), ring, idx);
    };
    Value emptyRing;
    if (releaseSlots)
      emptyRing =
          LocalAllocOp::create(b, barAlloc.getLoc(), barRingType, Value());
    for (int64_t s = 0; s < numStages; ++s) {
      MBarrierInitOp::create(b, init.getLoc(), slotAt(b, barRing, s),
                             init.getCountAttr());
      if (emptyRing)
        MBarrierInitOp::create(b, init.getLoc(), slotAt(b, emptyRing, s),
                               b.getI32IntegerAttr(numWarps));
    }
    init.erase();
    for (MBarrierInvalidateOp inv : invalidates) {
      OpBuilder ib(inv);
      for (int64_t s = 0; s < numStages; ++s) {
        MBarrierInvalidateOp::create(ib, inv.getLoc(), slotAt(ib, barRing, s));
        if (emptyRing)
          MBarrierInvalidateOp::create(ib, inv.getLoc(),
                                       slotAt(ib, emptyRing, s));
      }
      inv.erase();
    }

    pipeline::assignTwoStages(loop, stage0, copiesFirst);
    pipeline::normalizeLoop(loop);

    Value j = loop.getInductionVar();
    OpBuilder ob(loop);
    Value n = arith::ConstantOp::create(
        ob, loc, ob.getIntegerAttr(j.getType(), numStages));
    Value one =
        arith::ConstantOp::create(ob, loc, ob.getIntegerAttr(j.getType(), 1));
    OpBuilder ib = OpBuilder::atBlockBegin(body);
    Value s0 = staged<arith::RemSIOp>(ib, 0, j, n);
    Value sLast = staged<arith::RemSIOp>(ib, last, j, n);
    Value round = staged<arith::DivSIOp>(ib, last, j, n);
    Value parity = staged<arith::AndIOp>(ib, last, round, one);

    // Stage 0: expect and copies into slot j % N (after the phase of its
    // empty barrier that the reads of iteration j - N complete: parity
    // ((j / N) - 1) & 1, which a fresh barrier passes at once for j < N).
    OpBuilder eb(expect);
    if (emptyRing) {
      Value round0 = staged<arith::DivSIOp>(ib, 0, j, n);
      Value odd = staged<arith::AndIOp>(ib, 0, round0, one);
      Value emptyParity = staged<arith::XOrIOp>(ib, 0, odd, one);
      Value empty0 =
          staged<MemDescIndexOp>(eb, 0, slotOf(barRingType), emptyRing, s0);
      // Past the loop's end (no refill) the wait still returns: the reads it
      // waits for ran N iterations earlier, so it needs no predicate.
      // Only the warp whose elected thread issues the copies waits; the
      // others go on to their reads.
      auto emptyWait =
          staged<MBarrierWaitOp>(eb, 0, empty0, emptyParity, Value());
      emptyWait.setElectedWarp(true);
      TileDialect::UnpredicatedAttrHelper(loop.getContext())
          .setAttr(emptyWait, eb.getUnitAttr());
      // Stage N-1: every warp releases slot j % N after its reads.
      OpBuilder ab(body->getTerminator());
      Value emptyLast = staged<MemDescIndexOp>(ab, last, slotOf(barRingType),
                                               emptyRing, sLast);
      staged<MBarrierArriveOp>(ab, last, emptyLast, ab.getI32IntegerAttr(1),
                               Value(), ab.getI32IntegerAttr(0),
                               ab.getUnitAttr());
    }
    Value bar0 = staged<MemDescIndexOp>(eb, 0, slotOf(barRingType), barRing, s0);
    expect.getBarrierMutable().assign(bar0);
    for (auto [c, ring] : llvm::zip(copies, rings)) {
      OpBuilder cb(c);
      Value slot = staged<MemDescIndexOp>(
          cb, 0, slotOf(cast<MemDescType>(ring.getType())), ring, s0);
      c.getBarrierMutable().assign(bar0);
      c.getResultMutable().assign(slot);
    }
    // Stage N-1: the wait at the slot's parity, the reads of slot j % N.
    OpBuilder wb(wait);
    Value barLast =
        staged<MemDescIndexOp>(wb, last, slotOf(barRingType), barRing, sLast);
    wait.getBarrierMutable().assign(barLast);
    wait.getPhaseMutable().assign(parity);
    wb.setInsertionPointAfter(wait);
    for (auto [buf, ring] : llvm::zip(bufs, rings)) {
      Value slot = staged<MemDescIndexOp>(
          wb, last, slotOf(cast<MemDescType>(ring.getType())), ring, sLast);
      buf.getResult().replaceUsesWithIf(slot, [&](OpOperand &use) {
        return body->findAncestorOpInBlock(*use.getOwner()) != nullptr;
      });
      pipeline::retypeViews(slot);
      if (buf->use_empty())
        buf.erase();
    }
    if (barAlloc->use_empty())
      barAlloc.erase();
  }

  scf::ForOp loop;
  Block *body;
  int64_t numStages;
  MBarrierExpectOp expect;
  SmallVector<AsyncTMACopyGlobalToLocalOp> copies;
  MBarrierWaitOp wait;
  LocalAllocOp barAlloc;
  MBarrierInitOp init;
  SmallVector<MBarrierInvalidateOp> invalidates;
  SmallVector<LocalAllocOp> bufs;
  llvm::SetVector<Operation *> stage0;
  bool copiesFirst = true;
  int numWarps;
  /// Every warp releases the slots on "empty" barriers (slotsReleasedByWarps).
  bool releaseSlots = false;
};

struct PipelineTMA : tile_nv::impl::TileNVPipelineTMAPassBase<PipelineTMA> {
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
      if (pipeline::getNumStages(loop) < 2 || pipeline::isStaged(loop))
        return;
      bool tma = false;
      loop.getBody()->walk(
          [&](AsyncTMACopyGlobalToLocalOp) { tma = true; });
      if (tma)
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      if (context->target->arch < 90)
        continue; // TMA ops are the verifier's to refuse there
      if (failed(TMAPipeliner(loop, context->numWarps).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
