//===- InsertBarriers.cpp - Barriers for shared-memory hazards ------------===//
//
// The state at a program point is what happened since the last barrier:
// the byte ranges read and written, and the asynchronous copies still in
// flight (with how many commit groups followed theirs). An access that
// overlaps a conflicting earlier one gets a barrier before it unless both
// are thread-local (see ThreadKey). Loops are iterated to a fixed point
// before barriers go into their bodies, so a hazard across the back edge is
// caught; branches are analysed separately and joined.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <memory>

namespace kiln::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERSPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

constexpr int64_t kWholeMemory = std::numeric_limits<int64_t>::max();

/// Which bytes each thread touches, when that is the same function of the
/// thread for two accesses and no two threads touch the same byte: the
/// allocation, the view's type and place in its slot (slots of one
/// allocation differ only by a base) and the register layout. Two accesses with equal keys never touch a
/// byte another thread touched in the other.
struct ThreadKey {
  Operation *root = nullptr;
  Type view;
  int64_t xorOffset = 0;
  std::shared_ptr<const LinearLayout> layout;

  bool valid() const { return root != nullptr; }
  bool operator==(const ThreadKey &o) const {
    return valid() && root == o.root && view == o.view &&
           xorOffset == o.xorOffset && layout && o.layout &&
           *layout == *o.layout;
  }
};

struct Access {
  int64_t begin = 0, end = kWholeMemory;
  ThreadKey key;
  Operation *op = nullptr;

  bool overlaps(const Access &o) const {
    return begin < o.end && o.begin < end;
  }
  bool conflicts(const Access &o) const {
    return overlaps(o) && !(key == o.key);
  }
  bool operator==(const Access &o) const {
    return op == o.op && begin == o.begin && end == o.end;
  }
};

/// An async copy in flight. `groupsAfter` counts the commit groups closed
/// after its own (-1: not committed yet).
struct Pending {
  Access access;
  int groupsAfter = -1;
};

struct State {
  SmallVector<Access> reads, writes;
  SmallVector<Pending> pending;

  static void addUnique(SmallVector<Access> &set, const Access &a) {
    if (!llvm::is_contained(set, a))
      set.push_back(a);
  }
  /// Join at a control-flow merge: every access that may have happened, and
  /// each copy with the fewest groups after it (the least likely finished).
  void join(const State &o) {
    for (const Access &a : o.reads)
      addUnique(reads, a);
    for (const Access &a : o.writes)
      addUnique(writes, a);
    for (const Pending &p : o.pending) {
      auto it = llvm::find_if(
          pending, [&](const Pending &q) { return q.access == p.access; });
      if (it == pending.end())
        pending.push_back(p);
      else
        it->groupsAfter = std::min(it->groupsAfter, p.groupsAfter);
    }
  }
  bool operator==(const State &o) const {
    auto sameSet = [](ArrayRef<Access> a, ArrayRef<Access> b) {
      return a.size() == b.size() &&
             llvm::all_of(a, [&](const Access &x) {
               return llvm::is_contained(b, x);
             });
    };
    if (!sameSet(reads, o.reads) || !sameSet(writes, o.writes) ||
        pending.size() != o.pending.size())
      return false;
    return llvm::all_of(pending, [&](const Pending &p) {
      return llvm::any_of(o.pending, [&](const Pending &q) {
        return q.access == p.access && q.groupsAfter == p.groupsAfter;
      });
    });
  }
};

/// Bytes of an allocation or scratch buffer, from the allocator's offset.
Access bufferAccess(Operation *buffer, int64_t bytes, Operation *op) {
  Access a;
  a.op = op;
  if (!buffer)
    return a; // unknown buffer: all of shared memory
  auto offset = buffer->getAttrOfType<IntegerAttr>(
      TileDialect::ScratchOffsetAttrHelper::getNameStr());
  if (!offset)
    return a;
  a.begin = offset.getInt();
  a.end = a.begin + bytes;
  return a;
}

int64_t allocationBytes(LocalAllocOp alloc) {
  return getAllocationBytes(alloc.getType());
}

/// The access `op` makes to `memdesc` with a tensor of `tensorType`.
Access memdescAccess(Value memdesc, RankedTensorType tensorType,
                     Operation *op) {
  LocalAllocOp root = getRootAllocation(memdesc);
  Access a = bufferAccess(root, root ? allocationBytes(root) : 0, op);
  if (!root)
    return a;
  FailureOr<LinearLayout> layout = getLinearLayout(tensorType);
  if (failed(layout))
    return a;
  // A thread-local key needs each element in exactly one thread.
  for (auto dim : {LinearLayout::Lane, LinearLayout::Warp})
    for (const LinearLayout::Basis &b : layout->getBases(dim))
      if (llvm::all_of(b, [](int32_t c) { return c == 0; }))
        return a;
  a.key.root = root;
  a.key.view = memdesc.getType();
  a.key.xorOffset = getSharedXorOffset(memdesc);
  a.key.layout = std::make_shared<const LinearLayout>(*layout);
  return a;
}

RankedTensorType pointeeTensor(RankedTensorType type) {
  return RankedTensorType::get(
      type.getShape(),
      cast<PointerType>(type.getElementType()).getPointeeType(),
      type.getEncoding());
}

class BarrierInserter {
public:
  /// Runs `block` from `state`; inserts barriers when `insert`.
  void runBlock(Block &block, State &state, bool insert) {
    for (Operation &op : llvm::make_early_inc_range(block))
      runOp(&op, state, insert);
  }

  unsigned inserted = 0;

private:
  void barrier(Operation *before, State &state, bool insert) {
    state.reads.clear();
    state.writes.clear();
    if (insert && before) {
      OpBuilder b(before);
      BarrierOp::create(b, before->getLoc());
      ++inserted;
    }
  }

  /// A synchronous read or write by `op`: a barrier first if it conflicts.
  void access(Operation *op, const Access &a, bool isWrite, State &state,
              bool insert) {
    bool hazard = llvm::any_of(state.writes, [&](const Access &w) {
      return w.conflicts(a);
    });
    if (isWrite)
      hazard |= llvm::any_of(state.reads, [&](const Access &r) {
        return r.conflicts(a);
      });
    if (hazard)
      barrier(op, state, insert);
    State::addUnique(isWrite ? state.writes : state.reads, a);
  }

  void runOp(Operation *op, State &state, bool insert) {
    if (isa<BarrierOp>(op)) {
      barrier(nullptr, state, false);
      return;
    }
    if (getScratchBytes(op) > 0) {
      // The op's lowering starts with a barrier, writes its scratch, waits
      // again and reads it: afterwards, only its reads are unordered.
      barrier(nullptr, state, false);
      state.reads.push_back(bufferAccess(op, getScratchBytes(op), op));
      return;
    }
    if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      if (Value src = alloc.getSrc())
        access(op,
               memdescAccess(alloc.getResult(),
                             cast<RankedTensorType>(src.getType()), op),
               /*isWrite=*/true, state, insert);
      return;
    }
    if (auto store = dyn_cast<LocalStoreOp>(op)) {
      access(op,
             memdescAccess(store.getDst(),
                           cast<RankedTensorType>(store.getValue().getType()),
                           op),
             /*isWrite=*/true, state, insert);
      return;
    }
    if (auto load = dyn_cast<LocalLoadOp>(op)) {
      Access a = memdescAccess(load.getSrc(), load.getType(), op);
      access(op, a, /*isWrite=*/false, state, insert);
      // No copy into these bytes in flight: the load may be declared not to
      // alias in-flight copies (LLVM then adds no wait of its own for them).
      if (insert) {
        bool inFlight = a.end == kWholeMemory ||
                        llvm::any_of(state.pending, [&](const Pending &p) {
                          return p.access.overlaps(a);
                        });
        TileDialect::SyncedViaWaitAttrHelper helper(op->getContext());
        if (inFlight)
          op->removeAttr(helper.getName());
        else
          helper.setAttr(op, UnitAttr::get(op->getContext()));
      }
      return;
    }
    if (auto copy = dyn_cast<AsyncCopyOpInterface>(op)) {
      // Overwriting bytes read or written since the last barrier needs a
      // barrier first, even in the thread that read them: an async copy is
      // not ordered after the issuing thread's own earlier accesses (the
      // vendors' memory models), a barrier completes them. The copy's own write
      // lands at a later wait.
      Access a = memdescAccess(copy.getDst(), pointeeTensor(copy.getPointerType()),
                               op);
      bool hazard = llvm::any_of(state.reads, [&](const Access &r) {
        return r.overlaps(a);
      }) || llvm::any_of(state.writes, [&](const Access &w) {
        return w.overlaps(a);
      });
      if (hazard)
        barrier(op, state, insert);
      state.pending.push_back({a, -1});
      return;
    }
    if (isa<AsyncCommitGroupOp>(op)) {
      for (Pending &p : state.pending)
        p.groupsAfter = std::min(p.groupsAfter + 1, kMaxGroups);
      return;
    }
    if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
      // Copies with at least `num` groups after theirs have landed: they
      // are writes of the issuing thread from here on.
      // Without a count (tile-insert-wait-counts did not run) every copy is
      // taken as landed: that can only add barriers.
      int num = wait.getNum().value_or(0);
      SmallVector<Pending> still;
      for (Pending &p : state.pending) {
        if (p.groupsAfter >= num)
          State::addUnique(state.writes, p.access);
        else
          still.push_back(p);
      }
      state.pending = std::move(still);
      return;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      State elseState = state;
      runBlock(ifOp.getThenRegion().front(), state, insert);
      if (!ifOp.getElseRegion().empty())
        runBlock(ifOp.getElseRegion().front(), elseState, insert);
      state.join(elseState);
      return;
    }
    if (isa<scf::ForOp, scf::WhileOp>(op)) {
      runLoop(op, state, insert);
      return;
    }
    if (op->getNumRegions() > 0) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          runBlock(block, state, insert);
      return;
    }
    // Anything else that touches shared memory may touch all of it, in
    // any thread: a barrier before it, and one before the next access.
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      if (llvm::any_of(list, [](const MemoryEffects::EffectInstance &e) {
            return isa<SharedMemoryResource>(e.getResource()) &&
                   !isa<MemoryEffects::Free>(e.getEffect());
          })) {
        barrier(op, state, insert);
        Access all;
        all.op = op;
        state.writes.push_back(all);
      }
    }
  }

  /// The loop body runs from the join of the entry state and its own end
  /// state, iterated until that stops changing (the sets only grow, and the
  /// group counts are capped).
  void runLoop(Operation *loop, State &state, bool insert) {
    State entry = state;
    State in = state;
    for (int iter = 0; iter < 64; ++iter) {
      State out = in;
      runBody(loop, out, /*insert=*/false);
      State next = entry;
      next.join(out);
      if (next == in)
        break;
      in = std::move(next);
    }
    State out = in;
    runBody(loop, out, insert);
    // The loop may run zero times (for) or exit after its condition (while).
    state = in;
    state.join(out);
  }

  void runBody(Operation *loop, State &state, bool insert) {
    if (auto forOp = dyn_cast<scf::ForOp>(loop)) {
      runBlock(*forOp.getBody(), state, insert);
      return;
    }
    auto whileOp = cast<scf::WhileOp>(loop);
    runBlock(whileOp.getBefore().front(), state, insert);
    runBlock(whileOp.getAfter().front(), state, insert);
  }

  static constexpr int kMaxGroups = 1 << 20;
};

struct InsertBarriers
    : kiln::tile::impl::TileInsertBarriersPassBase<InsertBarriers> {
  void runOnOperation() override {
    BarrierInserter inserter;
    for (Operation &op : getOperation().getBody()->getOperations())
      for (Region &region : op.getRegions())
        for (Block &block : region) {
          State state;
          inserter.runBlock(block, state, /*insert=*/true);
        }
  }
};

} // namespace
