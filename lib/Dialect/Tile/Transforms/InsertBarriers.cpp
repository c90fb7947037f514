//===- InsertBarriers.cpp - Barriers for shared-memory hazards ------------===//
//
// A client of the one model of async work (kiln/Analysis/AsyncState.h),
// whose states here also track the accesses since the last CTA barrier: a
// barrier goes before each op the state says needs one (barrierHazard:
// bytes read and written by threads since the last barrier, with thread
// keys and warp views, and the copies landed since), and a local load no
// copy in flight may write is marked for the lowering (copyInFlight). The
// walk is ForwardWalk.h's with this pass's policy: loops are iterated to a
// fixed point before barriers go into their bodies, so a hazard across the
// back edge is caught; branches are analysed separately and joined.
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/AsyncState.h"
#include "kiln/Analysis/ForwardWalk.h"
#include "kiln/Analysis/RingSlot.h"
#include "kiln/Dialect/Tile/IR/BarrierRuns.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace kiln::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERSPASS
#define GEN_PASS_DEF_TILEANNOTATELOCALLOADALIASPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile::async;

namespace {

/// A view of one slot of a ring: a memdesc_index of an allocation by a
/// value that is not a constant.
bool isRingSlotView(Value memdesc) {
  Operation *def = memdesc.getDefiningOp();
  while (isa_and_nonnull<MemDescSubsliceOp, MemDescPermuteOp,
                         MemDescReshapeOp, MemDescReinterpretOp>(def))
    def = def->getOperand(0).getDefiningOp();
  auto index = dyn_cast_or_null<MemDescIndexOp>(def);
  return index && !constantInt(index.getIndex());
}

/// The walk (ForwardWalk.h) with the barrier policy: loops accumulate
/// their head state, scf.while is a loop, and warp_specialize partitions
/// start empty (every warp meets at a barrier before the partitions and
/// after them; a barrier inside a partition orders that partition's warps,
/// the others synchronize with it through mbarriers).
class BarrierInserter : public async::ForwardWalk<BarrierInserter, AsyncState> {
public:
  static constexpr async::WalkPolicy policy{
      async::WalkPolicy::Loops::Accumulate, /*maxGenerations=*/0,
      /*maxRounds=*/64, /*whileAsLoop=*/true, /*freshPartitions=*/true,
      /*joinOtherRegions=*/false};

  /// What the final run over each op does: insert barriers, or mark loads
  /// that no in-flight copy can write (the dataflow is the same).
  enum class Mode { InsertBarriers, AnnotateLoads };
  /// `explainWaits`: remark at a load that keeps the target's conservative
  /// wait (targets whose waits count instructions: the code generator adds
  /// one before a shared-memory read that may alias a copy in flight).
  BarrierInserter(Mode mode, const AsyncTransfer &transferFn, Operation *scope,
                  int numWarps, bool explainWaits = true)
      : mode(mode), transferFn(transferFn), numWarps(numWarps),
        explainWaits(explainWaits) {
    collectAgents(scope);
  }

private:
  friend class async::ForwardWalk<BarrierInserter, AsyncState>;

  /// A barrier before `op` where the state says one is needed (inserted
  /// only when `insert`: the walk's last run over the op), then the op's
  /// effect; true: the walk enters its regions next.
  bool transfer(Operation &op, AsyncState &state, bool insert) {
    // A barrier's invalidation comes after a CTA barrier of its own (the
    // lowering's: a wait may still be polling it), which a run of
    // invalidates shares before its first.
    if (isa<BarrierInvalidateOpInterface>(&op))
      state.barrier();
    if (state.barrierHazard(transferFn.accesses(&op)) ||
        releasesUnorderedAccesses(op, state) || lapsAWait(op, state)) {
      if (insert && mode == Mode::InsertBarriers) {
        OpBuilder b(&op);
        BarrierOp::create(b, op.getLoc());
      }
      state.barrier();
    }
    transferFn.apply(op, state);
    recordWait(op, state);
    // A barrier's initialization is followed by a CTA barrier of its own
    // (the lowering's: every thread may use the barrier next), which a run
    // of inits shares after its last.
    if (isa<BarrierInitOpInterface>(&op) && !initSharesNextBarrier(&op))
      state.barrier();
    if (auto load = dyn_cast<LocalLoadOp>(&op);
        load && insert && mode == Mode::AnnotateLoads)
      annotate(load, state);
    // A scratch op's regions (a combiner) touch no shared memory; a
    // warp_specialize's scratch holds the values it passes its partitions,
    // and its partitions are code like any other.
    return op.getNumRegions() > 0 &&
           (getScratchBytes(&op) == 0 || isa<WarpSpecializeOp>(&op));
  }

  /// A plain arrival on a barrier is one thread's, made for the whole
  /// partition with release semantics (what the threads did to shared
  /// memory before it is visible to the barrier's waiters): the threads'
  /// accesses since the last CTA barrier, and reads that other warps may
  /// still be retiring, must be complete first. With none, no barrier: the
  /// consumer's arrival after a wgmma wait of its own warpgroup (CUTLASS's
  /// consumer release) needs none.
  static bool releasesUnorderedAccesses(Operation &op,
                                        const AsyncState &state) {
    auto arrive = dyn_cast<BarrierArriveOpInterface>(&op);
    // Every warp arriving for its own threads needs no CTA barrier: what
    // they accessed is released by their own arrivals (and ordered at a
    // wait on the barrier: Access::releasedTo).
    if (!arrive || arrive.arrivesPerWarp())
      return false;
    // An arrival that also expects bytes releases the same way: shared
    // memory the threads wrote before it (a value posted for the waiters
    // next to the copies) must be written by all of them first. Reads need
    // nothing here: a copy into bytes still being read is ordered at the
    // copy.
    if (arrive.getExpectedBytes() != 0)
      return !state.writes.empty();
    // An async read (a wgmma) is also recorded as its threads' read; once
    // no longer in flight (its warpgroup, the whole partition, waited for
    // it) it is complete for every thread.
    auto unordered = [&](const Access &a) {
      if (isWaitRecord(a))
        return false; // lapsAWait's concern
      if (!isa_and_nonnull<AsyncReadOpInterface>(a.op))
        return true;
      return llvm::any_of(state.pending,
                          [&](const InFlight &p) { return p.op == a.op; });
    };
    return !state.writes.empty() || llvm::any_of(state.reads, unordered);
  }

  /// For each barrier allocation: the partitions (enclosingWorkerPartition)
  /// that make its phases complete (arrivals, expects, barrier-completed
  /// writes) and those that wait on it.
  void collectAgents(Operation *scope) {
    auto note = [&](auto &map, Value barrier, Operation *op) {
      if (Operation *root = reference(barrier).root)
        map[root].insert(enclosingWorkerPartition(op));
    };
    scope->walk([&](Operation *op) {
      if (auto arrive = dyn_cast<BarrierArriveOpInterface>(op))
        note(advancers, arrive.getArrivedBarrier(), op);
      if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(op))
        note(advancers, write.getCompletionBarrier(), op);
      if (auto arrive = dyn_cast<AsyncCopyArriveOpInterface>(op))
        note(advancers, arrive.getCopiesBarrier(), op);
      if (auto wait = dyn_cast<BarrierWaitOpInterface>(op))
        note(waiters, wait.getWaitedBarrier(), op);
    });
  }

  /// Every warp of a partition of several waits on a barrier: a record of
  /// it until the next CTA barrier (isWaitRecord), which one thread's
  /// signal must not overtake (lapsAWait).
  void recordWait(Operation &op, AsyncState &state) const {
    auto wait = dyn_cast<BarrierWaitOpInterface>(&op);
    if (!wait || wait.waitsInElectedWarpOnly() ||
        state.tracking != Tracking::Accesses ||
        lookupNumWarps(&op, numWarps) <= 1)
      return;
    Access record{reference(wait.getWaitedBarrier()), &op};
    if (!llvm::is_contained(state.reads, record))
      state.reads.push_back(std::move(record));
  }

  /// Progress: one thread's op that lets a barrier complete a phase (an
  /// arrival or expect of one thread, a copy its elected thread issues)
  /// while warps of its partition may not yet have returned from a wait
  /// since the last CTA barrier. If the op can make the waited barrier
  /// complete again -- it is that barrier, or another partition waits on
  /// the op's barrier and another partition also completes the waited one
  /// -- a slow warp may find a later phase of the same parity in progress
  /// and wait forever: a CTA barrier first. A wgmma of the whole partition
  /// retired since the wait (every warp issued it) drops the record; one
  /// that every warp released by its own arrival to a barrier the elected
  /// warp then waited on is ordered before that warp's thread.
  bool lapsAWait(Operation &op, const AsyncState &state) const {
    if (state.tracking != Tracking::Accesses)
      return false;
    Value signalled;
    if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(&op)) {
      if (write.issuedByElectedThread())
        signalled = write.getCompletionBarrier();
    } else if (auto arrive = dyn_cast<BarrierArriveOpInterface>(&op)) {
      if (!arrive.arrivesPerWarp())
        signalled = arrive.getArrivedBarrier();
    }
    if (!signalled)
      return false;
    Buffer x = reference(signalled);
    Agent agent = enclosingWorkerPartition(&op);
    auto byOthers = [&](const auto &map, Operation *root) {
      auto it = map.find(root);
      return it != map.end() &&
             llvm::any_of(it->second,
                          [&](const auto &a) { return a != agent; });
    };
    bool othersWaitOnIt = x.root && byOthers(waiters, x.root);
    return llvm::any_of(state.reads, [&](const Access &r) {
      // Ordered before the one thread's ops already: every warp released
      // it (per-warp arrivals) to a barrier that thread's warp waited on.
      if (!isWaitRecord(r) || r.orderedForIssuer)
        return false;
      if (r.buffer.overlapsBytes(x))
        return true;
      return othersWaitOnIt && r.buffer.root &&
             byOthers(advancers, r.buffer.root);
    });
  }

  /// No copy into the load's bytes in flight: it may be declared not to
  /// alias in-flight copies (LLVM then adds no wait of its own for them).
  void annotate(LocalLoadOp load, const AsyncState &state) {
    Operation *op = load;
    Buffer read = reference(load.getSrc(), load.getType());
    const InFlight *inFlight = state.copyInFlight(read);
    TileDialect::SyncedViaWaitAttrHelper helper(op->getContext());
    if (read.end != kWholeMemory && !inFlight) {
      helper.setAttr(op, UnitAttr::get(op->getContext()));
    } else if (explainWaits && !helper.isAttrPresent(op) && inFlight &&
               !read.slot.known() && isRingSlotView(load.getSrc()) &&
               reportedUnknownSlots.insert(op).second) {
      // A ring slot Kiln cannot name: the copies in flight may write it
      // as far as the analysis knows, so the load keeps the target's
      // conservative wait. Say why, at the load.
      op->emitRemark()
          << "this shared-memory load waits for every async copy in "
             "flight (LLVM's conservative wait): the ring slot it reads "
             "is not a constant, (iv + c) % N with iv + c never negative "
             "in an scf.for of constant lower bound and step, a "
             "loop-carried counter s advanced as (s + 1) % N, or "
             "(s + c) % N of one, so Kiln cannot prove the copies in "
             "flight write other slots";
    } else if (helper.isAttrPresent(op) &&
               !TileDialect::RelaxedLoadCheckedAttrHelper(op->getContext())
                    .isAttrPresent(op)) {
      // The user's assertion (load_shared_relaxed) stays, with a warning
      // when a copy into these bytes may still be in flight (unless the
      // async-safety check, naming the buffers control flow chooses, found
      // none).
      InFlightDiagnostic diag = op->emitWarning()
                                << "this relaxed shared-memory load reads "
                                   "bytes an async copy may still be "
                                   "writing: no wait before it covers "
                                   "that copy's group";
      if (inFlight)
        diag.attachNote(inFlight->op->getLoc()) << "the copy";
    }
  }

  Mode mode;
  const AsyncTransfer &transferFn;
  int numWarps;
  bool explainWaits;
  using Agent = std::pair<Operation *, unsigned>;
  llvm::DenseMap<Operation *, llvm::SmallSetVector<Agent, 2>> advancers,
      waiters;
  /// Loads already told their ring slot is unknown (the final run may visit
  /// a load more than once).
  llvm::SmallPtrSet<Operation *, 8> reportedUnknownSlots;
};

void runOnModule(ModuleOp module, BarrierInserter::Mode mode,
                 bool waitOrdersWarp, bool explainWaits = true) {
  for (Operation &op : module.getBody()->getOperations()) {
    AsyncTransfer transferFn(&op, getNumWarps(module), waitOrdersWarp);
    BarrierInserter inserter(mode, transferFn, &op, getNumWarps(module),
                             explainWaits);
    for (Region &region : op.getRegions())
      for (Block &block : region) {
        AsyncState state(Tracking::Accesses);
        inserter.runBlock(block, state, /*final=*/true);
      }
  }
}

struct InsertBarriers
    : kiln::tile::impl::TileInsertBarriersPassBase<InsertBarriers> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CompileContext> ctx =
        resolveCompileContext(module, target, 0, /*requireTarget=*/false);
    if (failed(ctx))
      return signalPassFailure();
    runOnModule(module, BarrierInserter::Mode::InsertBarriers,
                ctx->target && ctx->target->asyncWaitOrdersWarp);
  }
};

struct AnnotateLocalLoadAlias
    : kiln::tile::impl::TileAnnotateLocalLoadAliasPassBase<
          AnnotateLocalLoadAlias> {
  void runOnOperation() override {
    // The conservative wait is the code generator's on targets whose waits
    // count instructions; where waits count commit groups there is none to
    // explain. A module that names no target keeps the remarks.
    ModuleOp module = getOperation();
    bool explain = true;
    {
      // Quietly: a module whose target does not resolve is another pass's
      // error (and only this lookup is silenced, not the remarks below).
      ScopedDiagnosticHandler quiet(module.getContext(),
                                    [](Diagnostic &) { return success(); });
      FailureOr<CompileContext> ctx =
          resolveCompileContext(module, "", 0, /*requireTarget=*/false);
      explain = failed(ctx) || !ctx->target ||
                ctx->target->asyncWaitCountsInstructions;
    }
    runOnModule(module, BarrierInserter::Mode::AnnotateLoads,
                /*waitOrdersWarp=*/false, explain);
  }
};

} // namespace
