//===- InsertBarriers.cpp - Barriers for shared-memory hazards ------------===//
//
// The state at a program point is what happened since the last barrier:
// the byte ranges read and written, and the asynchronous copies still in
// flight (with how many commit groups followed theirs). An access that
// overlaps a conflicting earlier one gets a barrier before it unless both
// are thread-local (see ThreadKey). The lattice is BarrierState.h's; the
// walk is ForwardWalk.h's with this pass's policy: loops are iterated to a
// fixed point before barriers go into their bodies, so a hazard across the
// back edge is caught; branches are analysed separately and joined.
//
//===----------------------------------------------------------------------===//

#include "kiln/Analysis/BarrierState.h"
#include "kiln/Analysis/ForwardWalk.h"
#include "kiln/Analysis/RingSlot.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

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
class BarrierInserter
    : public async::ForwardWalk<BarrierInserter, BarrierState> {
public:
  static constexpr async::WalkPolicy policy{
      async::WalkPolicy::Loops::Accumulate, /*maxGenerations=*/0,
      /*maxRounds=*/64, /*whileAsLoop=*/true, /*freshPartitions=*/true,
      /*joinOtherRegions=*/false};

  /// What the final run over each op does: insert barriers, or mark loads
  /// that no in-flight copy can write (the dataflow is the same).
  enum class Mode { InsertBarriers, AnnotateLoads };
  BarrierInserter(Mode mode, bool waitOrdersWarp, int numWarps)
      : mode(mode), waitOrdersWarp(waitOrdersWarp), numWarps(numWarps) {}

  unsigned inserted = 0;

private:
  friend class async::ForwardWalk<BarrierInserter, BarrierState>;

  void barrier(Operation *before, BarrierState &state, bool insert) {
    state.reads.clear();
    state.writes.clear();
    if (insert && before && mode == Mode::InsertBarriers) {
      OpBuilder b(before);
      BarrierOp::create(b, before->getLoc());
      ++inserted;
    }
  }

  /// A synchronous read or write by `op`: a barrier first if it conflicts.
  void access(Operation *op, const Access &a, bool isWrite, BarrierState &state,
              bool insert) {
    // A read of a copy its own warp issued and waited for needs no barrier
    // where the wait orders the whole warp.
    bool hazard = llvm::any_of(state.writes, [&](const Access &w) {
      return w.conflicts(a) &&
             !(!isWrite && w.landedInWarp &&
               warpReadsOwnCopies(w.warp, a.warp));
    });
    if (isWrite)
      hazard |= llvm::any_of(state.reads, [&](const Access &r) {
        return r.conflicts(a);
      });
    if (hazard)
      barrier(op, state, insert);
    BarrierState::addUnique(isWrite ? state.writes : state.reads, a);
  }

  /// The op's own effect; true: the walk enters its regions next. Barriers
  /// go in only when `insert` (the walk's last run over the op).
  bool transfer(Operation &opRef, BarrierState &state, bool insert) {
    Operation *op = &opRef;
    if (isa<BarrierOp>(op)) {
      barrier(nullptr, state, false);
      return false;
    }
    // A read issued by a group of fewer warps than run here (a wgmma with
    // more than one warpgroup): in flight until its group's wait, then a
    // read by any thread (the other groups may still be reading) until a
    // barrier, so an overlapping write or copy after the waits gets one.
    if (auto read = dyn_cast<AsyncReadOpInterface>(op)) {
      unsigned group = read.getAsyncReadGroupWarps();
      if (read.isAsyncReadInFlight() && group > 0 &&
          int(group) < lookupNumWarps(op, numWarps)) {
        StringRef counter = read.getAsyncReadCounter();
        for (GroupRead &r : state.groupReads)
          if (r.counter == counter)
            r.groupsAfter = std::min(r.groupsAfter + 1, kMaxGroups);
        for (Value v : read.getAsyncReadBuffers()) {
          GroupRead r{viewAccess(v, op), counter, 0};
          llvm::erase_if(state.groupReads, [&](const GroupRead &q) {
            return q.access == r.access && q.counter == r.counter;
          });
          state.groupReads.push_back(r);
        }
      }
    }
    if (auto wait = dyn_cast<AsyncReadWaitOpInterface>(op)) {
      StringRef counter = wait.getAsyncReadCounter();
      int left = wait.getMaxPendingGroups();
      llvm::erase_if(state.groupReads, [&](const GroupRead &r) {
        if (r.counter != counter || r.groupsAfter < left)
          return false;
        BarrierState::addUnique(state.reads, r.access);
        return true;
      });
    }
    if (getScratchBytes(op) > 0) {
      // The op's lowering starts with a barrier, writes its scratch, waits
      // again and reads it: afterwards, only its reads are unordered.
      barrier(nullptr, state, false);
      state.reads.push_back(bufferAccess(op, getScratchBytes(op), op));
      return false;
    }
    if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      if (Value src = alloc.getSrc())
        access(op,
               memdescAccess(alloc.getResult(),
                             cast<RankedTensorType>(src.getType()), op),
               /*isWrite=*/true, state, insert);
      return false;
    }
    if (auto store = dyn_cast<LocalStoreOp>(op)) {
      access(op,
             memdescAccess(store.getDst(),
                           cast<RankedTensorType>(store.getValue().getType()),
                           op),
             /*isWrite=*/true, state, insert);
      return false;
    }
    if (auto load = dyn_cast<LocalLoadOp>(op)) {
      Access a = memdescAccess(load.getSrc(), load.getType(), op);
      access(op, a, /*isWrite=*/false, state, insert);
      // No copy into these bytes in flight: the load may be declared not to
      // alias in-flight copies (LLVM then adds no wait of its own for them).
      if (insert && mode == Mode::AnnotateLoads) {
        auto inFlight = llvm::find_if(state.pending, [&](const Pending &p) {
          return p.access.overlaps(a);
        });
        TileDialect::SyncedViaWaitAttrHelper helper(op->getContext());
        if (a.end != kWholeMemory && inFlight == state.pending.end()) {
          helper.setAttr(op, UnitAttr::get(op->getContext()));
        } else if (!helper.isAttrPresent(op) && inFlight != state.pending.end() &&
                   !a.slot.known() && isRingSlotView(load.getSrc()) &&
                   reportedUnknownSlots.insert(op).second) {
          // A ring slot Kiln cannot name: the copies in flight may write it
          // as far as the analysis knows, so the load keeps the target's
          // conservative wait. Say why, at the load.
          op->emitRemark()
              << "this shared-memory load waits for every async copy in "
                 "flight (LLVM's conservative wait): the ring slot it reads "
                 "is not a constant, (iv + c) % N with iv + c never negative "
                 "in an scf.for of constant lower bound and step, or a "
                 "loop-carried counter (s + 1) % N, so Kiln cannot prove the "
                 "copies in flight write other slots";
        } else if (helper.isAttrPresent(op)) {
          // The user's assertion (load_shared_relaxed) stays, with a warning
          // when a copy into these bytes may still be in flight.
          InFlightDiagnostic diag = op->emitWarning()
                                    << "this relaxed shared-memory load reads "
                                       "bytes an async copy may still be "
                                       "writing: no wait before it covers "
                                       "that copy's group";
          if (inFlight != state.pending.end())
            diag.attachNote(inFlight->access.op->getLoc()) << "the copy";
        }
      }
      return false;
    }
    if (auto copy = dyn_cast<AsyncCopyOpInterface>(op)) {
      // Overwriting bytes read or written since the last barrier needs a
      // barrier first, even in the thread that read them: an async copy is
      // not ordered after the issuing thread's own earlier accesses (the
      // vendors' memory models), a barrier completes them. The copy's own write
      // lands at a later wait.
      Access a = memdescAccess(copy.getDst(), pointeeTensor(copy.getPointerType()),
                               op);
      if (state.touches(a))
        barrier(op, state, insert);
      state.pending.push_back({a, -1});
      return false;
    }
    if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(op)) {
      // Like an async copy: ordered after earlier accesses by a barrier
      // when it overlaps them. Its write lands, for every thread, when a
      // wait on its barrier returns: that wait orders it before every later
      // access, so nothing here tracks it (tile-check-async-safety reports
      // an access with no such wait).
      Access a = viewAccess(write.getDst(), op);
      if (state.touches(a))
        barrier(op, state, insert);
      return false;
    }
    if (isa<BarrierWaitOpInterface>(op))
      return false;
    if (isa<AsyncCommitGroupOp>(op)) {
      for (Pending &p : state.pending)
        p.groupsAfter = std::min(p.groupsAfter + 1, kMaxGroups);
      return false;
    }
    if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
      // Copies with at least `num` groups after theirs have landed: they
      // are writes of the issuing thread from here on.
      // Without a count (tile-insert-wait-counts did not run) every copy is
      // taken as landed: that can only add barriers.
      int num = wait.getNum().value_or(0);
      SmallVector<Pending> still;
      for (Pending &p : state.pending) {
        if (p.groupsAfter >= num) {
          Access landed = p.access;
          landed.landedInWarp = waitOrdersWarp;
          BarrierState::addUnique(state.writes, landed);
        } else
          still.push_back(p);
      }
      state.pending = std::move(still);
      return false;
    }
    if (op->getNumRegions() > 0)
      return true;
    // Anything else that touches shared memory: the views its effects
    // name, by any thread (a read or write of a whole view), or all of it
    // when an effect names none.
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      llvm::erase_if(list, [](const MemoryEffects::EffectInstance &e) {
        return !isa<SharedMemoryResource>(e.getResource()) ||
               isa<MemoryEffects::Free>(e.getEffect());
      });
      if (list.empty())
        return false;
      bool named = llvm::all_of(list, [](const MemoryEffects::EffectInstance &e) {
        return e.getValue() && isa<MemDescType>(e.getValue().getType());
      });
      if (!named) {
        barrier(op, state, insert);
        Access all;
        all.op = op;
        state.writes.push_back(all);
        return false;
      }
      // Check every effect before recording any: one barrier covers all.
      bool hazard = false;
      for (const MemoryEffects::EffectInstance &e : list) {
        Access a = viewAccess(e.getValue(), op);
        bool isWrite = !isa<MemoryEffects::Read>(e.getEffect());
        hazard |= llvm::any_of(state.writes, [&](const Access &w) {
          return w.conflicts(a);
        });
        if (isWrite)
          hazard |= llvm::any_of(state.reads, [&](const Access &r) {
            return r.conflicts(a);
          });
      }
      if (hazard)
        barrier(op, state, insert);
      for (const MemoryEffects::EffectInstance &e : list)
        BarrierState::addUnique(isa<MemoryEffects::Read>(e.getEffect()) ? state.reads
                                                               : state.writes,
                         viewAccess(e.getValue(), op));
    }
    return false;
  }

  static constexpr int kMaxGroups = 1 << 20;
  Mode mode;
  /// Loads already told their ring slot is unknown (the final run may visit
  /// a load more than once).
  llvm::SmallPtrSet<Operation *, 8> reportedUnknownSlots;
  bool waitOrdersWarp;
  int numWarps;
};

void runOnModule(ModuleOp module, BarrierInserter::Mode mode,
                 bool waitOrdersWarp) {
  BarrierInserter inserter(mode, waitOrdersWarp, getNumWarps(module));
  for (Operation &op : module.getBody()->getOperations())
    for (Region &region : op.getRegions())
      for (Block &block : region) {
        BarrierState state;
        inserter.runBlock(block, state, /*final=*/true);
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
    runOnModule(getOperation(), BarrierInserter::Mode::AnnotateLoads,
                /*waitOrdersWarp=*/false);
  }
};

} // namespace
