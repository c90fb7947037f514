//===- BarrierState.h - Shared-memory accesses since a barrier --*- C++ -*-===//
//
// The lattice of tile-insert-barriers and tile-annotate-local-load-alias,
// walked by ForwardWalk.h: what happened since the last CTA barrier, as
// byte ranges from the allocator's offsets (two allocations that share
// bytes conflict), with per-thread keys and warp views that prove two
// accesses thread- or warp-local, and the async copies and group reads
// still in flight.
//
// It is not AsyncState's lattice (allocation and ring slot, four kinds of
// work with generations): the barrier pass compares bytes where the checks
// compare buffers, keeps a copy with no known allocation (all of shared
// memory) where they drop it, merges a copy's iterations by bytes, and
// tracks only the reads of warpgroups fewer than the CTA's warps. Each of
// these decides barriers (docs/design.md, "One model of in-flight async
// work").
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ANALYSIS_BARRIERSTATE_H
#define KILN_ANALYSIS_BARRIERSTATE_H

#include "kiln/Analysis/RingSlot.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>
#include <memory>

namespace kiln::tile::async {

constexpr int64_t kWholeMemory = std::numeric_limits<int64_t>::max();

/// Which bytes each thread touches, when that is the same function of the
/// thread for two accesses and no two threads touch the same byte: the
/// allocation, the view's type and place in its slot (slots of one
/// allocation differ only by a base) and the register layout. Two accesses with equal keys never touch a
/// byte another thread touched in the other.
struct ThreadKey {
  mlir::Operation *root = nullptr;
  mlir::Type view;
  int64_t xorOffset = 0;
  std::shared_ptr<const LinearLayout> layout;

  bool valid() const { return root != nullptr; }
  bool operator==(const ThreadKey &o) const {
    return valid() && root == o.root && view == o.view &&
           xorOffset == o.xorOffset && layout && o.layout &&
           *layout == *o.layout;
  }
};

/// The elements of a view one warp touches: those of warp w are the
/// layout's image of w plus the span of its register and lane bases.
struct WarpView {
  mlir::Operation *root = nullptr;
  mlir::Type view;
  int64_t xorOffset = 0;
  std::shared_ptr<const LinearLayout> layout;

  bool valid() const { return root && layout; }
  bool sameView(const WarpView &o) const {
    return valid() && o.valid() && root == o.root && view == o.view &&
           xorOffset == o.xorOffset &&
           layout->getOutSizes() == o.layout->getOutSizes() &&
           layout->getNumBits(LinearLayout::Warp) ==
               o.layout->getNumBits(LinearLayout::Warp);
  }
};

struct Access {
  int64_t begin = 0, end = kWholeMemory;
  ThreadKey key;
  WarpView warp;
  /// A copy retired by a wait that orders the issuing warp as a whole.
  bool landedInWarp = false;
  RingSlot slot;
  mlir::Operation *op = nullptr;

  bool overlaps(const Access &o) const {
    if (slot.disjoint(o.slot))
      return false;
    return begin < o.end && o.begin < end;
  }
  bool conflicts(const Access &o) const {
    return overlaps(o) && !(key == o.key);
  }
  bool operator==(const Access &o) const {
    return op == o.op && begin == o.begin && end == o.end && slot == o.slot;
  }
};

/// An async copy in flight. `groupsAfter` counts the commit groups closed
/// after its own (-1: not committed yet).
struct Pending {
  Access access;
  int groupsAfter = -1;
};

/// An asynchronous read issued by a group of warps (a wgmma: its
/// warpgroup) with `groupsAfter` groups of its counter issued after it.
/// Its group's wait retires it for that group only; from the wait on it is
/// a read by any thread until a barrier.
struct GroupRead {
  Access access;
  llvm::StringRef counter;
  int groupsAfter = 0;
  bool operator==(const GroupRead &o) const {
    return access == o.access && counter == o.counter &&
           groupsAfter == o.groupsAfter;
  }
};

struct BarrierState {
  llvm::SmallVector<Access> reads, writes;
  llvm::SmallVector<Pending> pending;
  llvm::SmallVector<GroupRead, 2> groupReads;

  /// Whether an access since the last barrier overlaps `a` (an async write
  /// must be ordered after it, even in the same thread).
  bool touches(const Access &a) const {
    auto overlaps = [&](const Access &o) { return o.overlaps(a); };
    return llvm::any_of(reads, overlaps) || llvm::any_of(writes, overlaps);
  }

  static void addUnique(llvm::SmallVector<Access> &set, const Access &a) {
    if (!llvm::is_contained(set, a))
      set.push_back(a);
  }
  void forEachSlot(llvm::function_ref<void(RingSlot &)> fn) {
    for (GroupRead &r : groupReads)
      fn(r.access.slot);
    for (Access &a : reads)
      fn(a.slot);
    for (Access &a : writes)
      fn(a.slot);
    for (Pending &p : pending)
      fn(p.access.slot);
  }

  /// Join at a control-flow merge: every access that may have happened, and
  /// each copy with the fewest groups after it (the least likely finished).
  static BarrierState join(const BarrierState &a, const BarrierState &b) {
    BarrierState out = a;
    out.join(b);
    return out;
  }
  void join(const BarrierState &o);
  bool operator==(const BarrierState &o) const;
};

/// Whether every warp reads, in `read`, only elements it copied itself in
/// `write` (with no warp left out of the copy as a broadcast repeat).
bool warpReadsOwnCopies(const WarpView &write, const WarpView &read);

/// Bytes of an allocation or scratch buffer, from the allocator's offset
/// (all of shared memory when `buffer` is null or not yet placed).
Access bufferAccess(mlir::Operation *buffer, int64_t bytes,
                    mlir::Operation *op);

/// The access `op` makes to `memdesc` with a tensor of `tensorType`: its
/// allocation's bytes, ring slot, warp view and, when each element is in
/// exactly one thread, thread key.
Access memdescAccess(mlir::Value memdesc, mlir::RankedTensorType tensorType,
                     mlir::Operation *op);

/// The bytes of a view, touched by any thread of the CTA (hardware units
/// such as TMA and wgmma, or one thread on the CTA's behalf).
Access viewAccess(mlir::Value memdesc, mlir::Operation *op);

/// The tensor of what a tensor of pointers points to.
mlir::RankedTensorType pointeeTensor(mlir::RankedTensorType type);

} // namespace kiln::tile::async

#endif
