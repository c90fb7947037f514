//===- AsyncState.h - What asynchronous work is in flight -------*- C++ -*-===//
//
// One model of the asynchronous work on shared memory that may still be in
// flight at a program point, and of the accesses since the last CTA
// barrier, with one transfer function per op (AsyncTransfer) that the
// forward walks (ForwardWalk.h) apply. The passes that reason about async
// work are its clients: tile-check-async-safety turns what it finds into
// messages, tile-insert-wait-counts asks how many commit groups follow a
// token's (groupsAfter), tile-insert-barriers and
// tile-annotate-local-load-alias ask where a CTA barrier must go
// (barrierHazard) and what copies may write a load's bytes
// (copyInFlight), and test-print-async-state prints it.
//
// The transfer is driven only by the op interfaces (AsyncCopyOpInterface,
// AsyncReadOpInterface, BarrierCompletedWriteOpInterface, the barrier and
// fence interfaces) and memory effects, so a vendor op that implements
// them needs no code here.
//
// Every entry names its bytes with one buffer reference (Buffer): the
// allocation, the ring slot it stays in (RingSlot.h: a slot indexed
// `(iv + c) % S` is kept symbolically, and an access one iteration earlier
// is the slot `(iv - step + c) % S` of this one), its byte range from the
// allocator's offsets, and the thread key and warp view that prove two
// accesses thread- or warp-local. The checks compare allocations and slots
// (mustOverlap, mayOverlap: a buffer Kiln cannot name matches nothing), the
// barrier pass bytes (Buffer::overlapsBytes: a buffer it cannot name is all
// of shared memory).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ANALYSIS_ASYNCSTATE_H
#define KILN_ANALYSIS_ASYNCSTATE_H

#include "kiln/Analysis/ForwardWalk.h"
#include "kiln/Analysis/RingSlot.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/LinearLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>
#include <memory>
#include <optional>

namespace kiln::tile::async {

constexpr int64_t kWholeMemory = std::numeric_limits<int64_t>::max();

/// Which bytes each thread touches, when that is the same function of the
/// thread for two accesses and no two threads touch the same byte: the
/// allocation, the view's type and place in its slot (slots of one
/// allocation differ only by a base) and the register layout. Two accesses
/// with equal keys never touch a byte another thread touched in the other.
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

/// Whether every warp reads, in `read`, only elements it copied itself in
/// `write` (with no warp left out of the copy as a broadcast repeat).
bool warpReadsOwnCopies(const WarpView &write, const WarpView &read);

/// One buffer reference, the key of every entry of the state: the
/// allocation (a scratch buffer's op; null when Kiln cannot name it), the
/// ring slot it stays in, whether it is the whole allocation or only part
/// of its slot, its bytes from the allocator's offsets (all of shared
/// memory when the allocation is unknown or not placed yet) and, for an
/// access by threads of a known register layout, its warp view and (when
/// each element is in exactly one thread) thread key.
struct Buffer {
  mlir::Operation *root = nullptr;
  RingSlot slot;
  bool whole = false;   // no index or subslice between it and the allocation
  bool partial = false; // a subslice: not all of its slot
  int64_t begin = 0, end = kWholeMemory;
  ThreadKey key;
  WarpView warp;
  /// The elements viewed, as a box [boxLo, boxHi) in the coordinates of a
  /// slot `indexDepth` memdesc_index ops below the allocation (subslices
  /// and permutes of it; empty when another view is between them). Every
  /// shared layout places each element of a slot at its own bytes, so two
  /// views of one allocation at the same depth whose boxes do not meet
  /// touch no common byte, whichever slots they are in.
  int indexDepth = 0;
  llvm::SmallVector<int64_t, 4> boxLo, boxHi;

  bool boxesDisjoint(const Buffer &o) const {
    if (!root || root != o.root || indexDepth != o.indexDepth ||
        boxLo.empty() || boxLo.size() != o.boxLo.size())
      return false;
    for (size_t d = 0; d < boxLo.size(); ++d)
      if (boxHi[d] <= o.boxLo[d] || o.boxHi[d] <= boxLo[d])
        return true;
    return false;
  }

  void aroundBackEdge(mlir::Operation *loop) {
    slot = slot.aroundBackEdge(loop);
  }
  void leaving(mlir::Operation *op) { slot = slot.leaving(op); }

  /// The barrier pass's comparison: the byte ranges meet (two allocations
  /// that reuse bytes too) and the slots may be the same.
  bool overlapsBytes(const Buffer &o) const {
    if (slot.disjoint(o.slot) || boxesDisjoint(o))
      return false;
    return begin < o.end && o.begin < end;
  }
  /// The bytes meet and some thread may touch a byte another thread
  /// touched in the other.
  bool conflicts(const Buffer &o) const {
    return overlapsBytes(o) && !(key == o.key);
  }
  /// The same bytes, for merging entries: range and slot.
  bool sameBytes(const Buffer &o) const {
    return begin == o.begin && end == o.end && slot == o.slot &&
           indexDepth == o.indexDepth && boxLo == o.boxLo && boxHi == o.boxHi;
  }
};

/// The reference to what `memdesc` views, bytes and slot, with its warp
/// view and thread key when `tensorType` (the tensor the access moves) has
/// a linear layout. Never fails: a view of no known allocation is all of
/// shared memory.
Buffer reference(mlir::Value memdesc,
                 mlir::RankedTensorType tensorType = nullptr);

/// Bytes of a scratch buffer `op` owns (all of shared memory when it is
/// not placed yet).
Buffer scratchReference(mlir::Operation *op, int64_t bytes);

/// The tensor of what a tensor of pointers points to.
mlir::RankedTensorType pointeeTensor(mlir::RankedTensorType type);

/// The buffer `memdesc` views, when its allocation is known (the checks'
/// reference: no bytes, key or view).
std::optional<Buffer> resolve(mlir::Value memdesc);

/// The checks' comparisons, by allocation and slot; a buffer of no known
/// allocation meets nothing.
/// The two buffers certainly share bytes: one allocation, and one of them
/// all of it or both all of one slot known to be the same.
bool mustOverlap(const Buffer &a, const Buffer &b);

/// The two buffers may share bytes (in the same iteration).
bool mayOverlap(const Buffer &a, const Buffer &b);

/// The two buffers may share bytes in some iterations: only different
/// constant slots never do.
bool mayMeet(const Buffer &a, const Buffer &b);

/// Shared buffers `op` writes (not counting buffers it allocates), async
/// copies and barrier-completed writes included.
/// The last barrier wait before `op` in program order: in its block, then
/// before the op that holds it, up to its function or warp_specialize
/// partition; with `crossLoops` false, not out of a loop either (a wait
/// before a loop does not guard each iteration). Null where there is none.
BarrierWaitOpInterface lastBarrierWaitBefore(mlir::Operation *op,
                                             bool crossLoops);

llvm::SmallVector<mlir::Value> writtenBuffers(mlir::Operation *op);

/// Shared buffers `op` reads by its threads, and those it reads
/// asynchronously (AsyncReadOpInterface).
llvm::SmallVector<mlir::Value> readBuffers(mlir::Operation *op);

/// Shared buffers an effect of `op` writes, with only the shared-memory
/// resource's effects counted (what its threads write, generic proxy).
llvm::SmallVector<mlir::Value> sharedWrittenBuffers(mlir::Operation *op);

/// The barrier `o` waits on, arrives on or completes a write on; null for
/// other ops.
mlir::Value eventBarrier(mlir::Operation *o);

/// What kind of work may still be in flight.
enum class Kind {
  /// An asynchronous read of shared memory (wgmma, TMA store), in a group
  /// of its counter.
  AsyncRead,
  /// An async copy into shared memory (cp.async, direct-to-LDS), in a
  /// commit group.
  Copy,
  /// A write that lands when a wait on its barrier returns (TMA load).
  BarrierWrite,
  /// Bytes the CTA's threads wrote (generic proxy) that no async-proxy
  /// fence has yet ordered before asynchronous reads.
  Unfenced,
};

/// A word for the writer of `kind` in messages ("async copy", ...).
llvm::StringRef describe(Kind kind);

/// A synchronous access since the last CTA barrier (kept by states that
/// track `Tracking::Accesses`).
struct Access {
  Buffer buffer;
  mlir::Operation *op = nullptr;
  /// A copy retired by a wait that orders the issuing warp as a whole.
  bool landedInWarp = false;
  /// Barriers every warp arrived on for its own threads after this access
  /// (arrivesPerWarp): a wait on one of them that returns orders it before
  /// the waiting threads, as a CTA barrier would.
  llvm::SmallVector<Buffer, 1> releasedTo;
  /// A wait by the elected warp only (waitsInElectedWarpOnly) on a barrier
  /// it was released to: ordered before the copies that warp's elected
  /// thread issues (issuedByElectedThread), not before other threads.
  bool orderedForIssuer = false;

  bool operator==(const Access &o) const {
    return op == o.op && buffer.sameBytes(o.buffer);
  }
};
/// An access whose op is a barrier wait: tile-insert-barriers' record that
/// every warp of the partition waited on that barrier since the last CTA
/// barrier (a "read" of the barrier's phase), not a memory access.
bool isWaitRecord(const Access &a);

/// One piece of asynchronous work that may still be in flight.
struct InFlight {
  mlir::Operation *op;
  unsigned generation; // how many back edges since it was issued
  Kind kind;
  llvm::StringRef counter; // AsyncRead: its counter
  /// AsyncRead: fewest groups of `counter` after it; Copy (and a copy an
  /// arrive handed to a barrier, `arrivedCopy`): fewest commit groups
  /// closed after its own (-1: its group is not closed yet).
  int minAfter = 0;
  /// Copy: issued by another warp_specialize partition, whose threads alone
  /// can wait for it.
  bool foreign = false;
  /// AsyncRead: each group of warps has waited for its own, but another
  /// group's may be in flight until a CTA barrier (getAsyncReadGroupThreads).
  bool retiredByIssuers = false;
  /// BarrierWrite: an async copy whose completion an arrive handed to
  /// `barrier`; an async_wait covering its commit group still lands it for
  /// the issuing threads (a write by them from then on).
  bool arrivedCopy = false;
  /// Read (AsyncRead) or written (others); a buffer Kiln cannot name is
  /// kept (all of shared memory to the barrier pass, nothing to the checks).
  llvm::SmallVector<Buffer, 1> buffers;
  std::optional<Buffer> barrier; // BarrierWrite: where it lands
  /// AsyncRead issued by a group of warps covering the partition (a
  /// warpgroup's wgmma in a partition of one warpgroup): the barrier waits
  /// (tile-insert-barriers' progress records, `isWaitRecord`) since the last
  /// CTA barrier when it was issued. Its retirement means every warp issued
  /// it, and so has passed those waits.
  llvm::SmallVector<Access, 2> waitsBefore;
  /// Work from before a loop: how many of the loop's back edges its slots
  /// have moved around (one version per trip it may still be in flight on).
  llvm::SmallVector<std::pair<mlir::Operation *, unsigned>, 1> moved;
  unsigned &movedAround(mlir::Operation *loop) {
    for (auto &[l, n] : moved)
      if (l == loop)
        return n;
    moved.push_back({loop, 0});
    return moved.back().second;
  }

  /// The same work: one op, issued the same number of back edges ago.
  bool sameEvent(const InFlight &o) const {
    return op == o.op && generation == o.generation && kind == o.kind &&
           foreign == o.foreign;
  }
  void forEachBuffer(llvm::function_ref<void(Buffer &)> fn);
};

inline void InFlight::forEachBuffer(llvm::function_ref<void(Buffer &)> fn) {
  for (Buffer &b : buffers)
    fn(b);
  if (barrier)
    fn(*barrier);
  for (Access &w : waitsBefore)
    fn(w.buffer);
}

/// Groups a commit can add before the count stops mattering.
constexpr int kManyGroups = 1 << 20;

/// An access of an op that may race with work in flight.
struct Hazard {
  Buffer accessed;
  bool isWrite;
  const InFlight *work;
};


/// How an op touches shared memory as the accesses since a CTA barrier see
/// it (a read or write of a whole view by any thread when the op names only
/// a view).
struct OpAccesses {
  enum Class {
    None,
    Barrier,    // a CTA barrier
    Scratch,    // its lowering: barrier, write scratch, barrier, read it
    Threads,    // reads and writes by its threads
    AsyncWrite, // an async copy or barrier-completed write
    Unnamed,    // shared memory its effects do not name: all of it
  } cls = None;
  llvm::SmallVector<std::pair<Access, bool>, 1> list; // (access, is a write)
};

/// What a state keeps beyond the work in flight, and how joins merge its
/// entries: the reading of the entries each walk needs. The transfer
/// function is the same.
enum class Tracking {
  /// The checks and the wait counts (the generations walk): one entry per
  /// event (op, back-edge generation), its buffers as first seen; no
  /// accesses since the last barrier.
  Events,
  /// tile-insert-barriers and the local-load annotation (the accumulating
  /// walk, with no generations): one entry per event and buffer bytes (a
  /// ring slot one iteration back is another entry), and the reads and
  /// writes since the last CTA barrier.
  Accesses,
};

/// What may be in flight at a program point: the lattice of the walk.
/// Joins keep every piece of work of either side, with the fewest groups
/// after it (the least likely finished), and every access since the last
/// barrier of either side.
struct AsyncState {
  Tracking tracking = Tracking::Events;
  llvm::SmallVector<InFlight, 0> pending;
  /// The most commit groups that may be in flight (kManyGroups: unknown;
  /// always, for Tracking::Accesses).
  int maxGroups = 0;
  /// Accesses: reads and writes by the CTA's threads since the last CTA
  /// barrier (a retired copy is a write of its issuing threads, a read
  /// retired by its issuing group only a read by any thread), or since a
  /// wait on a barrier every warp arrived on after them (Access::releasedTo).
  llvm::SmallVector<Access, 0> reads, writes;

  AsyncState() = default;
  explicit AsyncState(Tracking tracking)
      : tracking(tracking),
        maxGroups(tracking == Tracking::Accesses ? kManyGroups : 0) {}
  /// An empty state of the same tracking.
  AsyncState emptyLike() const { return AsyncState(tracking); }

  void forEachBuffer(llvm::function_ref<void(Buffer &)> fn) {
    for (InFlight &p : pending)
      p.forEachBuffer(fn);
    for (llvm::SmallVectorImpl<Access> *set : {&reads, &writes})
      for (Access &a : *set) {
        fn(a.buffer);
        for (Buffer &r : a.releasedTo)
          fn(r);
      }
  }
  void forEachSlot(llvm::function_ref<void(RingSlot &)> fn) {
    forEachBuffer([&](Buffer &b) { fn(b.slot); });
  }
  /// Entering `loop` anew: no work has moved around its back edge yet.
  void enteringLoopWork(mlir::Operation *loop) {
    for (InFlight &p : pending)
      llvm::erase_if(p.moved, [&](auto &m) { return m.first == loop; });
  }
  /// Whether `a` and `b` are one entry at a join (Tracking).
  bool sameEntry(const InFlight &a, const InFlight &b) const;
  static AsyncState join(const AsyncState &a, const AsyncState &b);
  bool operator==(const AsyncState &o) const;

  /// The work in flight of `kinds` whose buffers `overlap` says meet `b`.
  llvm::SmallVector<const InFlight *>
  inFlight(const Buffer &b,
           llvm::function_ref<bool(const Buffer &, const Buffer &)> overlap,
           llvm::ArrayRef<Kind> kinds) const;

  /// The races `op` may run into, in order: for each buffer it writes
  /// (writtenBuffers), the work in flight other than unfenced writes that
  /// `overlap` says meets it; then for each buffer it reads (readBuffers),
  /// the copies and barrier-completed writes, and, when `op` reads
  /// asynchronously, the unfenced writes. A write issued in the same
  /// iteration as `op` under a predicate never true together with `op`'s
  /// (the negation, or the opposite comparison of the same values) is no
  /// hazard for `op`'s writes. The pointers are into this state.
  llvm::SmallVector<Hazard, 0>
  hazards(mlir::Operation *op,
          llvm::function_ref<bool(const Buffer &, const Buffer &)> overlap)
      const;

  /// The races between threads (RAW, WAR, WAW against the accesses since
  /// the last barrier, Tracking::Accesses) that only a CTA barrier before
  /// an op with `accesses` (AsyncTransfer::accesses) orders: an access by
  /// its threads that conflicts with an earlier one (a read of bytes the
  /// reading warp copied and waited for itself excepted where the wait
  /// orders the warp), an async write over bytes accessed since (not
  /// ordered after even the issuing thread's own accesses), or an access of
  /// shared memory the op does not name.
  bool barrierHazard(const OpAccesses &accesses) const;

  /// The first async copy in flight whose bytes may meet `b` (the barrier
  /// pass's comparison), or null.
  const InFlight *copyInFlight(const Buffer &b) const;

  /// A CTA barrier: the accesses before it are ordered before every later
  /// one, and reads their issuing groups retired are done.
  void barrier();

  /// The work in flight on one line, `;`-separated, for tests and
  /// debugging; `name` prints an op (an allocation or the op that issued
  /// the work), `?` a buffer of no known allocation.
  void print(llvm::raw_ostream &os,
             llvm::function_ref<void(llvm::raw_ostream &, mlir::Operation *)>
                 name) const;
};

/// The one transfer function: what an op does to a state, driven by the op
/// interfaces and memory effects. Every walk applies it; a client decides
/// around it (a barrier first, a message, a count).
class AsyncTransfer {
public:
  /// `scope`: the function (its hand-offs are collected); `numWarps`: the
  /// kernel's warps (0 when the module does not say); `waitOrdersWarp`: an
  /// async_wait orders the issuing warp as a whole (the target's).
  AsyncTransfer(mlir::Operation *scope, int numWarps,
                bool waitOrdersWarp = false);

  void apply(mlir::Operation &op, AsyncState &state) const;

  /// The op's shared-memory accesses (computed once per op: they depend on
  /// its operands and the allocator's offsets only).
  const OpAccesses &accesses(mlir::Operation *op) const;

private:
  void runAsyncWait(AsyncWaitOp wait, AsyncState &state) const;
  void collectHandOffs(mlir::Operation *scope);
  void collectPerWarpBarriers(mlir::Operation *scope);

  int numWarps;
  int threadsPerWarp;
  bool waitOrdersWarp;
  /// Hand-offs through a second barrier, (R, E): an arrival on E that comes
  /// after a wait on R in its thread's program order. Whoever waits on E
  /// then knows the writes that completed R have landed.
  llvm::SmallVector<std::pair<Buffer, Buffer>, 0> handOffs;
  /// Barriers (allocations) only every warp's arrival completes a phase of
  /// (collectPerWarpBarriers): arrivesPerWarp releases only to these.
  llvm::DenseSet<mlir::Operation *> perWarpBarriers;
  mutable llvm::DenseMap<mlir::Operation *, std::unique_ptr<OpAccesses>>
      accessesOf;
};

/// A pass that reads the state the walk computes.
class AsyncStateClient {
public:
  virtual ~AsyncStateClient();
  /// Called for each op the walk reaches, with what is in flight before
  /// it. Ops in loops and partitions are visited once per round of the
  /// walk: the last visit sees the settled state.
  virtual void visit(mlir::Operation *op, const AsyncState &before) = 0;
};

/// The forward walk (ForwardWalk.h) over a function body with the checks'
/// policy: scf.for to a fixed point over a few back-edge generations
/// (bounded by a constant trip count), scf.if the join of the branches
/// (by default at the end of its block, the paths through ifs on the same
/// condition correlated),
/// other region ops such as scf.while once, joined with their entry, and
/// warp_specialize partitions concurrent from one state (a copy one
/// partition leaves in flight is foreign to the others). Its states track
/// `Tracking::Events`.
class AsyncStateWalker : public ForwardWalk<AsyncStateWalker, AsyncState> {
public:
  /// `numWarps`: the kernel's warps (0 when the module does not say).
  /// `correlate`: walk the paths through a block's scf.ifs apart, ifs on
  /// the same condition taking the same side (WalkPolicy::correlateBranches;
  /// a client then sees an op once per path), rather than joining each
  /// scf.if's branches where it ends.
  AsyncStateWalker(mlir::func::FuncOp func, int numWarps,
                   AsyncStateClient *client = nullptr, bool correlate = true);

  /// Walks the function's body; returns the state at its end.
  AsyncState run();

  static constexpr WalkPolicy policy{WalkPolicy::Loops::Generations,
                                     /*maxGenerations=*/4, /*maxRounds=*/0,
                                     /*whileAsLoop=*/false,
                                     /*freshPartitions=*/false,
                                     /*joinOtherRegions=*/true,
                                     /*correlateBranches=*/true};

private:
  friend class ForwardWalk<AsyncStateWalker, AsyncState>;
  bool correlatesBranches() const { return correlate; }
  bool transfer(mlir::Operation &op, AsyncState &state, bool final);
  AsyncState carryAroundBackEdge(mlir::scf::ForOp loop,
                                 const AsyncState &body, unsigned generations);
  void saturate(AsyncState &state);
  void addForeign(AsyncState &partition, const AsyncState &otherEnd,
                  WarpSpecializeOp ws);

  mlir::func::FuncOp func;
  AsyncTransfer transferFn;
  AsyncStateClient *client;
  bool correlate;
};

/// What groupsAfter answers for a token whose group has retired.
constexpr int64_t kRetiredGroups = std::numeric_limits<int64_t>::max() / 4;

/// The fewest commit groups closed after `token`'s group on every path from
/// it to `at` (an op `token` dominates), or kRetiredGroups when the token is
/// retired. A loop of unknown trip count contributes no groups, an scf.if
/// the smaller of its branches; a token it cannot follow counts 0 and adds
/// `at` to `unknown`. Fails when a copy is not committed on some path (the
/// copy is added to `uncommitted`).
mlir::FailureOr<int64_t>
groupsAfter(mlir::Value token, mlir::Operation *at,
            llvm::SmallVectorImpl<mlir::Operation *> &uncommitted,
            llvm::SmallVectorImpl<mlir::Operation *> &unknown);

} // namespace kiln::tile::async

#endif
