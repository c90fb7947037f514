//===- AsyncState.h - What asynchronous work is in flight -------*- C++ -*-===//
//
// One model of the asynchronous work on shared memory that may still be in
// flight at a program point, and one forward walk that computes it over
// structured control flow. The passes that reason about async work are its
// clients: tile-check-async-safety turns what it finds into messages,
// tile-insert-wait-counts asks how many commit groups follow a token's
// (groupsAfter), and test-print-async-state prints it.
//
// The walk is driven only by the op interfaces (AsyncCopyOpInterface,
// AsyncReadOpInterface, BarrierCompletedWriteOpInterface, the barrier and
// fence interfaces), so a vendor op that implements them needs no code here.
//
// Buffers are compared by allocation and ring slot (RingSlot.h): a slot
// indexed `(iv + c) % S` is kept symbolically, and an access one iteration
// earlier is the slot `(iv - step + c) % S` of this one.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ANALYSIS_ASYNCSTATE_H
#define KILN_ANALYSIS_ASYNCSTATE_H

#include "kiln/Analysis/ForwardWalk.h"
#include "kiln/Analysis/RingSlot.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>
#include <optional>

namespace kiln::tile::async {

/// A shared buffer: its allocation, the ring slot it stays in (RingSlot.h),
/// and whether it is the whole allocation or only part of its slot.
struct Buffer {
  mlir::Operation *root = nullptr;
  RingSlot slot;
  bool whole = false;   // no index or subslice between it and the allocation
  bool partial = false; // a subslice: not all of its slot

  void aroundBackEdge(mlir::Operation *loop) {
    slot = slot.aroundBackEdge(loop);
  }
  void leaving(mlir::Operation *op) { slot = slot.leaving(op); }
};

/// The buffer `memdesc` views, when its allocation is known.
std::optional<Buffer> resolve(mlir::Value memdesc);

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

/// One piece of asynchronous work that may still be in flight.
struct InFlight {
  mlir::Operation *op;
  unsigned generation; // how many back edges since it was issued
  Kind kind;
  llvm::StringRef counter; // AsyncRead: its counter
  /// AsyncRead: fewest groups of `counter` after it; Copy: fewest commit
  /// groups closed after its own (-1: its group is not closed yet).
  int minAfter = 0;
  /// Copy: issued by another warp_specialize partition, whose threads alone
  /// can wait for it.
  bool foreign = false;
  /// AsyncRead: each group of warps has waited for its own, but another
  /// group's may be in flight until a CTA barrier (getAsyncReadGroupWarps).
  bool retiredByIssuers = false;
  llvm::SmallVector<Buffer> buffers; // read (AsyncRead) or written (others)
  std::optional<Buffer> barrier;     // BarrierWrite: where it lands

  /// The same work: one op, issued the same number of back edges ago.
  bool sameEvent(const InFlight &o) const {
    return op == o.op && generation == o.generation && kind == o.kind &&
           foreign == o.foreign;
  }
  void forEachBuffer(llvm::function_ref<void(Buffer &)> fn) {
    for (Buffer &b : buffers)
      fn(b);
    if (barrier)
      fn(*barrier);
  }
};

/// Groups a commit can add before the count stops mattering.
constexpr int kManyGroups = 1 << 20;

/// An access of an op that may race with work in flight.
struct Hazard {
  Buffer accessed;
  bool isWrite;
  const InFlight *work;
};

/// What may be in flight at a program point: the lattice of the walk.
/// Joins keep every piece of work of either side, with the fewest groups
/// after it (the least likely finished).
struct AsyncState {
  llvm::SmallVector<InFlight> pending;
  /// The most commit groups that may be in flight (kManyGroups: unknown).
  int maxGroups = 0;

  void forEachBuffer(llvm::function_ref<void(Buffer &)> fn) {
    for (InFlight &p : pending)
      p.forEachBuffer(fn);
  }
  void forEachSlot(llvm::function_ref<void(RingSlot &)> fn) {
    forEachBuffer([&](Buffer &b) { fn(b.slot); });
  }
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
  /// asynchronously, the unfenced writes. The pointers are into this state.
  llvm::SmallVector<Hazard>
  hazards(mlir::Operation *op,
          llvm::function_ref<bool(const Buffer &, const Buffer &)> overlap)
      const;

  /// The state on one line, `;`-separated, for tests and debugging; `name`
  /// prints an op (an allocation or the op that issued the work).
  void print(llvm::raw_ostream &os,
             llvm::function_ref<void(llvm::raw_ostream &, mlir::Operation *)>
                 name) const;
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
/// (bounded by a constant trip count), scf.if the join of the branches,
/// other region ops such as scf.while once, joined with their entry, and
/// warp_specialize partitions concurrent from one state (a copy one
/// partition leaves in flight is foreign to the others).
class AsyncStateWalker : public ForwardWalk<AsyncStateWalker, AsyncState> {
public:
  /// `numWarps`: the kernel's warps (0 when the module does not say).
  AsyncStateWalker(mlir::func::FuncOp func, int numWarps,
                   AsyncStateClient *client = nullptr);

  /// Walks the function's body; returns the state at its end.
  AsyncState run();

  static constexpr WalkPolicy policy{WalkPolicy::Loops::Generations,
                                     /*maxGenerations=*/4, /*maxRounds=*/0,
                                     /*whileAsLoop=*/false,
                                     /*freshPartitions=*/false,
                                     /*joinOtherRegions=*/true};

private:
  friend class ForwardWalk<AsyncStateWalker, AsyncState>;
  bool transfer(mlir::Operation &op, AsyncState &state, bool final);
  void runAsyncWait(AsyncWaitOp wait, AsyncState &state);
  AsyncState carryAroundBackEdge(mlir::scf::ForOp loop,
                                 const AsyncState &body, unsigned generations);
  void saturate(AsyncState &state);
  void addForeign(AsyncState &partition, const AsyncState &otherEnd,
                  WarpSpecializeOp ws);
  void collectHandOffs();

  mlir::func::FuncOp func;
  int numWarps;
  AsyncStateClient *client;
  /// Hand-offs through a second barrier, (R, E): an arrival on E that comes
  /// after a wait on R in its thread's program order. Whoever waits on E
  /// then knows the writes that completed R have landed.
  llvm::SmallVector<std::pair<Buffer, Buffer>> handOffs;
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
