//===- CheckAsyncSafety.cpp - Hangs and races of async ops, at compile time ===//
//
// Mistakes that hang or race a kernel built from asynchronous copies,
// barrier-completed writes and asynchronous shared-memory reads, reported
// where they are certain from the IR alone:
//
//  * a wait on a barrier that no op in the function arrives on: its phase
//    can never complete, so the wait never returns;
//  * an arrival that announces N transaction bytes while the writes that
//    complete on the same barrier before its next wait deliver M != N: the
//    phase hangs (M < N) or completes before the data lands (M > N);
//  * a write to a shared buffer that an asynchronous read may still be
//    reading: no wait on the read's counter leaves few enough groups in
//    flight in between (a refilled ring slot, a store source rewritten);
//  * a read or write of a buffer an async copy may still be writing: no
//    wait covering the copy's commit group on some path (no commit, no
//    wait, a wait leaving the group in flight, a wait on one branch only,
//    a wait in another warp_specialize partition), or no wait on the
//    barrier a barrier-completed write (TMA) lands on;
//  * an asynchronous read (TMA store, wgmma) of bytes the CTA's threads
//    wrote with no async-proxy fence in between;
//  * a kernel that can end with an asynchronous read still in flight (a
//    TMA store never waited for);
//  * an access in one warp_specialize partition, with no barrier wait
//    before it there, of bytes another partition writes;
//  * (a warning) a wait for more commit groups than can be in flight;
//  * the lifecycle of barriers (CheckBarrierLifecycle.cpp).
//
// Buffers are compared by allocation and ring slot (RingSlot.h, shared with
// tile-insert-barriers): a slot indexed `(iv + c) % S` is kept symbolically,
// so `i % S` and `(i + S - 1) % S` are different slots in one iteration, and
// an access one iteration earlier is the slot `(iv - step + c) % S` of this
// one. Where equality is not certain the buffers are taken as different (no
// report): the checks never claim a hazard the IR does not show, and miss
// only the ones it cannot decide. The pass runs after tile-insert-wait-counts
// so that waits on tokens carry their group counts.
//
//===----------------------------------------------------------------------===//

#include "AsyncSafety.h"

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace kiln::tile {
#define GEN_PASS_DEF_TILECHECKASYNCSAFETYPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile::async_safety;

// --- buffers -------------------------------------------------------------

std::optional<Buffer> async_safety::resolve(Value memdesc) {
  LocalAllocOp root = getRootAllocation(memdesc);
  if (!root)
    return std::nullopt;
  Buffer b{root, getRingSlot(memdesc)};
  bool indexed = false;
  for (Operation *def = memdesc.getDefiningOp(); def && def != root;
       def = def->getOperand(0).getDefiningOp()) {
    indexed |= isa<MemDescIndexOp>(def);
    b.partial |= isa<MemDescSubsliceOp, MemDescReinterpretOp>(def);
  }
  b.whole = !indexed && !b.partial;
  return b;
}

bool async_safety::mustOverlap(const Buffer &a, const Buffer &b) {
  if (a.root != b.root || a.partial || b.partial)
    return false;
  return a.whole || b.whole || (a.slot.known() && a.slot == b.slot);
}

bool async_safety::mayOverlap(const Buffer &a, const Buffer &b) {
  return a.root == b.root && !a.slot.disjoint(b.slot);
}

bool async_safety::mayMeet(const Buffer &a, const Buffer &b) {
  if (a.root != b.root)
    return false;
  return !(a.slot.known() && b.slot.known() && !a.slot.base && !b.slot.base &&
           a.slot.offset != b.slot.offset);
}

/// The shared buffers an effect of `op` of kind `Effect` names: the value
/// of an effect on one, every memdesc operand for an op-wide one.
template <typename Effect>
static SmallVector<Value> effectBuffers(Operation *op, bool sharedOnly) {
  SmallVector<Value> out;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return out;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  auto add = [&](Value v) {
    if (v && isa<MemDescType>(v.getType()) && v.getDefiningOp() != op &&
        !llvm::is_contained(out, v))
      out.push_back(v);
  };
  for (auto &e : list) {
    if (!isa<Effect>(e.getEffect()))
      continue;
    if (sharedOnly && !isa<SharedMemoryResource>(e.getResource()))
      continue;
    if (Value v = e.getValue()) {
      add(v);
      continue;
    }
    for (Value operand : op->getOperands())
      add(operand);
  }
  return out;
}

SmallVector<Value> async_safety::writtenBuffers(Operation *op) {
  SmallVector<Value> out = effectBuffers<MemoryEffects::Write>(op, false);
  if (auto w = dyn_cast<BarrierCompletedWriteOpInterface>(op))
    if (!llvm::is_contained(out, w.getDst()))
      out.push_back(w.getDst());
  return out;
}

SmallVector<Value> async_safety::readBuffers(Operation *op) {
  SmallVector<Value> out = effectBuffers<MemoryEffects::Read>(op, true);
  if (auto read = dyn_cast<AsyncReadOpInterface>(op))
    for (Value v : read.getAsyncReadBuffers())
      if (!llvm::is_contained(out, v))
        out.push_back(v);
  return out;
}

Value async_safety::eventBarrier(Operation *o) {
  if (auto w = dyn_cast<BarrierWaitOpInterface>(o))
    return w.getWaitedBarrier();
  if (auto a = dyn_cast<BarrierArriveOpInterface>(o))
    return a.getArrivedBarrier();
  if (auto c = dyn_cast<BarrierCompletedWriteOpInterface>(o))
    return c.getCompletionBarrier();
  return {};
}

namespace {

/// The trip count of `loop` when its bounds and step are constants.
std::optional<int64_t> constantTripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = constantInt(loop.getLowerBound()),
                         ub = constantInt(loop.getUpperBound()),
                         step = constantInt(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub <= *lb ? 0 : (*ub - *lb + *step - 1) / *step;
}

// --- asynchronous work in flight -----------------------------------------

/// What may still be in flight at a program point.
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

struct Pending {
  Operation *op;
  unsigned generation; // how many back edges since it was issued
  Kind kind;
  StringRef counter; // AsyncRead: its counter
  // AsyncRead: fewest groups of `counter` after it; Copy: fewest commit
  // groups closed after its own (-1: its group is not closed yet).
  int minAfter = 0;
  // Copy: issued by another warp_specialize partition, whose threads alone
  // can wait for it.
  bool foreign = false;
  // AsyncRead: each group of warps has waited for its own, but another
  // group's may be in flight until a CTA barrier (getAsyncReadGroupWarps).
  bool retiredByIssuers = false;
  SmallVector<Buffer> buffers; // read (AsyncRead) or written (the others)
  std::optional<Buffer> barrier; // BarrierWrite: where it lands

  bool sameEvent(const Pending &o) const {
    return op == o.op && generation == o.generation && kind == o.kind &&
           foreign == o.foreign;
  }
  void forEachBuffer(function_ref<void(Buffer &)> fn) {
    for (Buffer &b : buffers)
      fn(b);
    if (barrier)
      fn(*barrier);
  }
};

/// Groups a commit can add before the count stops mattering.
constexpr int kManyGroups = 1 << 20;

struct State {
  SmallVector<Pending> pending;
  /// The most commit groups that may be in flight (kManyGroups: unknown).
  int maxGroups = 0;

  void forEachBuffer(function_ref<void(Buffer &)> fn) {
    for (Pending &p : pending)
      p.forEachBuffer(fn);
  }
};

static State join(const State &a, const State &b) {
  State out = a;
  out.maxGroups = std::max(a.maxGroups, b.maxGroups);
  for (const Pending &p : b.pending) {
    auto it = llvm::find_if(out.pending,
                            [&](const Pending &q) { return q.sameEvent(p); });
    if (it == out.pending.end()) {
      out.pending.push_back(p);
    } else {
      it->minAfter = std::min(it->minAfter, p.minAfter);
      it->retiredByIssuers &= p.retiredByIssuers;
    }
  }
  return out;
}

static bool sameState(const State &a, const State &b) {
  if (a.pending.size() != b.pending.size() || a.maxGroups != b.maxGroups)
    return false;
  for (const Pending &p : a.pending)
    if (!llvm::any_of(b.pending, [&](const Pending &q) {
          return q.sameEvent(p) && q.minAfter == p.minAfter &&
                 q.retiredByIssuers == p.retiredByIssuers;
        }))
      return false;
  return true;
}

static StringRef describe(Kind kind) {
  switch (kind) {
  case Kind::Copy:
    return "async copy";
  case Kind::BarrierWrite:
    return "barrier-completed write";
  default:
    return "write";
  }
}

class Checker {
public:
  bool failed = false;
  /// The kernel's warps (tile.num_warps; 0 when the module does not say).
  int numWarps = 0;

  /// The rings the pipeliner built (the destinations of the copies it
  /// tagged tile.pipeline_part). On them the check is translation
  /// validation: an access that may touch a slot a copy or read may still
  /// use is an error, not only one that certainly does.
  void collectCompilerRings(func::FuncOp func) {
    func.walk([&](Operation *op) {
      if (!TileDialect::PipelinePartAttrHelper(op->getContext()).getAttr(op))
        return;
      Value dst;
      if (auto copy = dyn_cast<AsyncCopyOpInterface>(op))
        dst = copy.getDst();
      else if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(op))
        dst = write.getDst();
      if (!dst)
        return;
      if (std::optional<Buffer> b = resolve(dst))
        compilerRings.insert(b->root);
    });
  }

  /// Whether `a` and `b` overlap as far as reporting goes: certainly, or
  /// possibly on a compiler-made ring.
  bool conflict(const Buffer &a, const Buffer &b) const {
    if (compilerRings.contains(a.root))
      return mayOverlap(a, b);
    return mustOverlap(a, b);
  }
  /// Ops an error was reported at.
  llvm::DenseSet<Operation *> reportedOps;

  /// Hand-offs through a second barrier: an arrival on E that comes after a
  /// wait on R in its thread's program order (a consumer that waits for a
  /// slot's data, reads it, and arrives on the slot's "empty" barrier).
  /// Whoever waits on E then knows the writes that completed R have landed
  /// (the warp-specialized producer waiting for an empty slot before it
  /// refills it).
  void collectHandOffs(func::FuncOp func) {
    func.walk([&](BarrierArriveOpInterface arrive) {
      Operation *op = arrive.getOperation();
      if (isa<BarrierCompletedWriteOpInterface>(op))
        return;
      std::optional<Buffer> arrived = resolve(arrive.getArrivedBarrier());
      if (!arrived)
        return;
      for (Operation *o = op->getPrevNode(), *at = op; at;) {
        for (; o; o = o->getPrevNode())
          if (auto wait = dyn_cast<BarrierWaitOpInterface>(o)) {
            if (std::optional<Buffer> waited = resolve(wait.getWaitedBarrier()))
              handOffs.push_back({*waited, *arrived});
            return;
          }
        // The block's start: on before the op that holds it, within the
        // partition or function.
        at = at->getParentOp();
        if (!at || isa<func::FuncOp, WarpSpecializeOp>(at))
          return;
        o = at->getPrevNode();
      }
    });
  }

  void runBlock(Block &block, State &state) {
    for (Operation &op : block)
      runOp(op, state);
  }

  /// The kernel ends: nothing asynchronous may still read its shared
  /// memory, which the next CTA on the SM may be given.
  void atExit(const State &state) {
    for (const Pending &p : state.pending) {
      if (p.kind != Kind::AsyncRead || p.retiredByIssuers ||
          !exitReported.insert(p.op).second)
        continue;
      failed = true;
      p.op->emitError()
          << "the kernel can end while this asynchronous read of shared "
             "memory is still in flight: no wait on the '"
          << p.counter << "' counter leaves it done before the end"
          << (p.counter == "cp.async.bulk"
                  ? " (add a TMA store_wait(0) before the kernel returns)"
                  : "");
    }
  }

  /// Waits for more commit groups than can be in flight where they are:
  /// they wait for nothing (a warning; the largest count over every path
  /// and loop round decides).
  void warnIdleWaits() {
    for (auto [op, most] : waitMaxGroups) {
      auto wait = cast<AsyncWaitOp>(op);
      if (!wait.getNum() || int64_t(*wait.getNum()) <= most)
        continue;
      wait.emitWarning() << "waits until at most " << *wait.getNum()
                         << " commit groups are in flight, but at most "
                         << most << " can be here: it waits for nothing";
    }
  }

private:
  llvm::DenseSet<std::pair<Operation *, Operation *>> reported;
  llvm::DenseSet<Operation *> compilerRings;
  llvm::DenseSet<Operation *> exitReported, reportedAccess;
  llvm::MapVector<Operation *, int> waitMaxGroups;
  /// (R, E): see collectHandOffs.
  SmallVector<std::pair<Buffer, Buffer>> handOffs;
  static constexpr unsigned kMaxGenerations = 4;

  void checkAccesses(Operation &op, const State &state) {
    for (Value v : writtenBuffers(&op)) {
      std::optional<Buffer> written = resolve(v);
      if (!written)
        continue;
      for (const Pending &p : state.pending) {
        if (p.kind == Kind::Unfenced)
          continue;
        if (llvm::any_of(p.buffers, [&](const Buffer &b) {
              return conflict(b, *written);
            }))
          p.kind == Kind::AsyncRead
              ? reportReadInFlight(&op, p, compilerRings.contains(written->root))
              : reportWriteInFlight(&op, p, true);
      }
    }
    bool asyncRead = isa<AsyncReadOpInterface>(&op);
    for (Value v : readBuffers(&op)) {
      std::optional<Buffer> read = resolve(v);
      if (!read)
        continue;
      for (const Pending &p : state.pending) {
        bool hit = llvm::any_of(
            p.buffers, [&](const Buffer &b) { return conflict(b, *read); });
        if (!hit)
          continue;
        if (p.kind == Kind::Copy || p.kind == Kind::BarrierWrite)
          reportWriteInFlight(&op, p, false);
        else if (p.kind == Kind::Unfenced && asyncRead)
          reportUnfenced(&op, p);
      }
    }
  }

  void runOp(Operation &op, State &state) {
    checkAccesses(op, state);
    if (auto read = dyn_cast<AsyncReadOpInterface>(&op)) {
      StringRef counter = read.getAsyncReadCounter();
      if (!read.isAsyncReadInFlight()) { // it waits for its counter itself
        llvm::erase_if(state.pending, [&](const Pending &p) {
          return p.kind == Kind::AsyncRead && p.counter == counter;
        });
      } else {
        for (Pending &p : state.pending)
          if (p.kind == Kind::AsyncRead && p.counter == counter)
            ++p.minAfter;
        Pending p{&op, 0, Kind::AsyncRead, counter};
        for (Value v : read.getAsyncReadBuffers())
          if (std::optional<Buffer> b = resolve(v))
            p.buffers.push_back(*b);
        state.pending.push_back(std::move(p));
      }
    }
    if (auto wait = dyn_cast<AsyncReadWaitOpInterface>(&op)) {
      StringRef counter = wait.getAsyncReadCounter();
      unsigned left = wait.getMaxPendingGroups();
      // Reads issued by fewer warps than run here: each group has waited for
      // its own only.
      int warps = lookupNumWarps(&op, numWarps);
      llvm::erase_if(state.pending, [&](Pending &p) {
        if (p.kind != Kind::AsyncRead || p.counter != counter ||
            p.minAfter < int(left))
          return false;
        unsigned group =
            cast<AsyncReadOpInterface>(p.op).getAsyncReadGroupWarps();
        if (group == 0 || int(group) >= warps)
          return true;
        p.retiredByIssuers = true;
        return false;
      });
    }
    // Every thread has passed its waits: reads each group retired are done.
    if (isa<BarrierOp>(&op))
      llvm::erase_if(state.pending, [](const Pending &p) {
        return p.kind == Kind::AsyncRead && p.retiredByIssuers;
      });
    if (auto copy = dyn_cast<AsyncCopyOpInterface>(&op)) {
      if (std::optional<Buffer> dst = resolve(copy.getDst())) {
        Pending p{&op, 0, Kind::Copy, {}, -1};
        p.buffers.push_back(*dst);
        state.pending.push_back(std::move(p));
      }
    }
    if (isa<AsyncCommitGroupOp>(&op)) {
      for (Pending &p : state.pending)
        if (p.kind == Kind::Copy && !p.foreign)
          p.minAfter = std::min(p.minAfter + 1, kManyGroups);
      state.maxGroups = std::min(state.maxGroups + 1, kManyGroups);
    }
    if (auto wait = dyn_cast<AsyncWaitOp>(&op))
      runAsyncWait(wait, state);
    if (auto arrive = dyn_cast<AsyncCopyArriveOpInterface>(&op)) {
      // This thread's copies now land when a wait on the barrier returns.
      std::optional<Buffer> bar = resolve(arrive.getCopiesBarrier());
      for (Pending &p : state.pending)
        if (p.kind == Kind::Copy && !p.foreign) {
          p.kind = Kind::BarrierWrite;
          p.barrier = bar;
          p.minAfter = 0;
        }
    }
    if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(&op)) {
      if (std::optional<Buffer> dst = resolve(write.getDst())) {
        Pending p{&op, 0, Kind::BarrierWrite};
        p.buffers.push_back(*dst);
        p.barrier = resolve(write.getCompletionBarrier());
        state.pending.push_back(std::move(p));
      }
    }
    if (auto wait = dyn_cast<BarrierWaitOpInterface>(&op)) {
      std::optional<Buffer> waited = resolve(wait.getWaitedBarrier());
      llvm::erase_if(state.pending, [&](const Pending &p) {
        if (p.kind != Kind::BarrierWrite)
          return false;
        if (!waited || !p.barrier || mayOverlap(*p.barrier, *waited))
          return true;
        // A wait on the barrier a hand-off arrives on, after its wait on
        // the one this write completes.
        return llvm::any_of(handOffs, [&](const auto &h) {
          return mayOverlap(h.second, *waited) && mayOverlap(h.first, *p.barrier);
        });
      });
    }
    if (isa<AsyncProxyFenceOpInterface>(&op))
      llvm::erase_if(state.pending,
                     [](const Pending &p) { return p.kind == Kind::Unfenced; });
    if (!isa<AsyncCopyOpInterface, BarrierCompletedWriteOpInterface>(&op))
      for (Value v : effectBuffers<MemoryEffects::Write>(&op, true))
        if (std::optional<Buffer> b = resolve(v))
          addUnfenced(&op, *b, state);
    // A buffer initialized from registers: its own result, which
    // effectBuffers leaves out.
    if (auto alloc = dyn_cast<LocalAllocOp>(&op); alloc && alloc.getSrc())
      if (std::optional<Buffer> b = resolve(alloc.getResult()))
        addUnfenced(&op, *b, state);

    if (auto loop = dyn_cast<scf::ForOp>(&op))
      return runFor(loop, state);
    if (auto branch = dyn_cast<scf::IfOp>(&op)) {
      State thenState = state, elseState = state;
      runBlock(*branch.thenBlock(), thenState);
      if (branch.elseBlock())
        runBlock(*branch.elseBlock(), elseState);
      state = join(thenState, elseState);
      return;
    }
    if (auto ws = dyn_cast<WarpSpecializeOp>(&op))
      return runWarpSpecialize(ws, state);
    // Other regions (scf.while, ...): walked once, values left behind.
    for (Region &region : op.getRegions())
      for (Block &block : region) {
        State inner = state;
        runBlock(block, inner);
        state = join(state, inner);
        state.forEachBuffer([&](Buffer &b) { b.leaving(&op); });
      }
  }

  static void addUnfenced(Operation *op, const Buffer &b, State &state) {
    Pending p{op, 0, Kind::Unfenced};
    p.buffers.push_back(b);
    auto it = llvm::find_if(state.pending,
                            [&](const Pending &q) { return q.sameEvent(p); });
    if (it == state.pending.end())
      state.pending.push_back(std::move(p));
    else if (!llvm::any_of(it->buffers, [&](const Buffer &x) {
               return x.root == b.root && x.slot == b.slot;
             }))
      it->buffers.push_back(b);
  }

  /// Copies with at least `num` groups closed after theirs land: from then
  /// on their bytes are writes of the issuing threads (generic proxy). A
  /// wait without a count (tile-insert-wait-counts did not run) is taken
  /// to retire every copy: that can only miss a race, not invent one.
  void runAsyncWait(AsyncWaitOp wait, State &state) {
    std::optional<uint32_t> num = wait.getNum();
    int &most = waitMaxGroups.try_emplace(wait, 0).first->second;
    most = std::max(most, state.maxGroups);
    SmallVector<Pending> landed;
    llvm::erase_if(state.pending, [&](const Pending &p) {
      bool retired = p.kind == Kind::Copy && !p.foreign && p.minAfter >= 0 &&
                     (!num || p.minAfter >= int64_t(*num));
      if (retired)
        landed.push_back(p);
      return retired;
    });
    for (const Pending &p : landed)
      for (const Buffer &b : p.buffers)
        addUnfenced(p.op, b, state);
    if (num)
      state.maxGroups = std::min<int64_t>(state.maxGroups, *num);
  }

  void runFor(scf::ForOp loop, State &state) {
    // A constant trip count bounds how many back edges anything crosses,
    // and from 1 on the loop cannot be skipped.
    unsigned generations = kMaxGenerations;
    bool mayBeSkipped = true;
    if (std::optional<int64_t> trips = constantTripCount(loop)) {
      if (*trips == 0)
        return; // the body never runs
      generations = unsigned(std::min<int64_t>(generations, *trips - 1));
      mayBeSkipped = false;
    }
    State entry = state;
    entry.forEachBuffer([&](Buffer &b) { b.slot = b.slot.enteringLoop(loop); });
    State in = entry, exits;
    bool first = true;
    auto exitWith = [&](const State &s) {
      exits = first ? s : join(exits, s);
      first = false;
    };
    if (mayBeSkipped)
      exitWith(state);
    bool settled = false;
    for (unsigned round = 0; round < kMaxGenerations + 2; ++round) {
      State body = in;
      runBlock(*loop.getBody(), body);
      exitWith(body);
      // Around the back edge: the next iteration sees these one step back.
      State carried;
      carried.maxGroups = body.maxGroups;
      for (Pending p : body.pending) {
        // Work issued before this loop (in an enclosing loop's iteration)
        // is the same event on every trip: its generation counts the back
        // edges of the loop that issued it.
        if (loop->isProperAncestor(p.op) && ++p.generation > generations)
          continue;
        p.forEachBuffer([&](Buffer &b) { b.aroundBackEdge(loop); });
        carried.pending.push_back(std::move(p));
      }
      State next = join(entry, carried);
      if (sameState(next, in)) {
        settled = true;
        break;
      }
      in = std::move(next);
    }
    if (!settled) {
      // Groups still growing round after round: commits without waits.
      in.maxGroups = kManyGroups;
      State body = in;
      runBlock(*loop.getBody(), body);
      exitWith(body);
      exits.maxGroups = kManyGroups;
    }
    exits.forEachBuffer([&](Buffer &b) { b.leaving(loop); });
    state = std::move(exits);
  }

  /// Partitions run concurrently from the same state. A copy one partition
  /// leaves in flight is foreign to the others: no wait of theirs covers
  /// it (a wait counts only the groups of its own threads).
  void runWarpSpecialize(WarpSpecializeOp ws, State &state) {
    SmallVector<State> ends;
    for (Region &region : ws->getRegions()) {
      State inner = state;
      runBlock(region.front(), inner);
      ends.push_back(std::move(inner));
    }
    State out = state;
    for (auto [k, region] : llvm::enumerate(ws->getRegions())) {
      State inner = state;
      for (auto [j, end] : llvm::enumerate(ends)) {
        if (j == k)
          continue;
        for (const Pending &p : end.pending) {
          if (p.kind != Kind::Copy || !ws->isProperAncestor(p.op))
            continue;
          Pending foreign = p;
          foreign.foreign = true;
          inner.pending.push_back(std::move(foreign));
        }
      }
      runBlock(region.front(), inner);
      out = join(out, ends[k]);
    }
    out.forEachBuffer([&](Buffer &b) { b.leaving(ws); });
    state = std::move(out);
  }

  void reportReadInFlight(Operation *writer, const Pending &p,
                          bool compilerRing) {
    if (!reported.insert({writer, p.op}).second)
      return;
    // Another group's read retired by its own wait: a barrier after the
    // waits orders it, and tile-insert-barriers (after this check) adds one
    // where a hand-written kernel has none (Gluon's 8-warp tutorial GEMMs).
    // A ring the compiler built must carry its own (translation validation
    // of tile-nv-pipeline-wgmma).
    if (p.retiredByIssuers && !compilerRing)
      return;
    failed = true;
    reportedOps.insert(writer);
    InFlightDiagnostic d = writer->emitError();
    if (p.retiredByIssuers)
      d << "'" << writer->getName() << "' writes a shared buffer that the "
        << "asynchronous read of '" << p.op->getName() << "' by another "
        << "group of "
        << cast<AsyncReadOpInterface>(p.op).getAsyncReadGroupWarps()
        << " warps may still be reading: a wait on the '" << p.counter
        << "' counter retires only its own group's reads, and no CTA "
        << "barrier comes after the waits, before this write";
    else
      d << "'" << writer->getName() << "' writes a shared buffer that the "
        << "asynchronous read of '" << p.op->getName() << "' may still be "
        << "reading: no wait on the '" << p.counter << "' counter with at "
        << "most " << p.minAfter << " pending comes between them";
    noteGeneration(d, p, "the read");
    d.attachNote(p.op->getLoc()) << "the asynchronous read";
  }

  void reportWriteInFlight(Operation *accessor, const Pending &p,
                           bool isWrite) {
    // One report per access: the first copy found (a prologue's, often)
    // shows the mistake; the same one in later iterations adds nothing.
    if (!reportedAccess.insert(accessor).second)
      return;
    failed = true;
    reportedOps.insert(accessor);
    InFlightDiagnostic d = accessor->emitError()
        << "'" << accessor->getName() << "' " << (isWrite ? "writes" : "reads")
        << " shared memory that the " << describe(p.kind) << " of '"
        << p.op->getName() << "' may still be writing: ";
    if (p.kind == Kind::BarrierWrite)
      d << "no wait on the barrier it completes on comes between them";
    else if (p.foreign)
      d << "the copy is issued by another warp_specialize partition, and a "
           "wait covers only the copies of its own threads";
    else if (p.minAfter < 0)
      d << "its group is not committed (no commit_group after it) on some "
           "path, so no wait covers it";
    else
      d << "no wait covering its commit group comes between them on some "
           "path (at least "
        << p.minAfter << (p.minAfter == 1 ? " group is" : " groups are")
        << " committed after it, and a wait must leave at most that many "
           "in flight)";
    noteGeneration(d, p, "it");
    d.attachNote(p.op->getLoc()) << "the " << describe(p.kind);
  }

  void reportUnfenced(Operation *reader, const Pending &p) {
    if (!reported.insert({reader, p.op}).second)
      return;
    failed = true;
    reportedOps.insert(reader);
    InFlightDiagnostic d = reader->emitError()
        << "'" << reader->getName() << "' reads shared memory asynchronously "
        << "(async proxy) that '" << p.op->getName() << "' wrote with no "
        << "fence_async_shared between them: the asynchronous read may not "
        << "see those writes";
    noteGeneration(d, p, "it");
    d.attachNote(p.op->getLoc()) << "the write";
  }

  static void noteGeneration(InFlightDiagnostic &d, const Pending &p,
                             StringRef what) {
    if (p.generation)
      d << " (" << what << " was issued " << p.generation
        << (p.generation == 1 ? " iteration" : " iterations") << " earlier)";
  }
};

// --- barriers ------------------------------------------------------------

/// Whether `op`'s regions hold a barrier event that may be on `key` (in
/// any iteration: ring indices there are not comparable with key's).
static bool hasEventOn(Operation *op, const Buffer &key) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (inner == op)
      return WalkResult::advance();
    Value barrier = eventBarrier(inner);
    if (!barrier)
      return WalkResult::advance();
    std::optional<Buffer> b = resolve(barrier);
    if (b && b->root != key.root)
      return WalkResult::advance();
    found = true;
    return WalkResult::interrupt();
  });
  return found;
}

enum class Next { Wait, Undecided, Nothing };

/// The first event on `key` among `ops` (one block, in order): a wait on
/// it, something else that may be on it, or nothing.
template <typename Range>
static Next firstEvent(Range &&ops, const Buffer &key) {
  for (Operation &o : ops) {
    if (o.getNumRegions()) {
      if (hasEventOn(&o, key))
        return Next::Undecided;
      continue;
    }
    Value barrier = eventBarrier(&o);
    if (!barrier)
      continue;
    std::optional<Buffer> b = resolve(barrier);
    if (!b)
      return Next::Undecided;
    if (!mayOverlap(*b, key))
      continue;
    return isa<BarrierWaitOpInterface>(&o) && mustOverlap(*b, key)
               ? Next::Wait
               : Next::Undecided;
  }
  return Next::Nothing;
}

/// Whether the first event on `key` in the next iterations of `loop` is a
/// wait on it. `first`: the loop starts (key is from before it); otherwise
/// key is from the end of one iteration's body.
static bool loopWaitsNext(scf::ForOp loop, Buffer key, bool first) {
  if (first)
    key.slot = key.slot.enteringLoop(loop);
  else
    key.aroundBackEdge(loop);
  for (int k = 0; k < 4; ++k, key.aroundBackEdge(loop)) {
    Next next = firstEvent(loop.getBody()->without_terminator(), key);
    if (next != Next::Nothing)
      return next == Next::Wait;
  }
  return false;
}

/// An arrival announcing transaction bytes against the writes completing
/// on its barrier up to its next wait, from its block.
static bool checkExpectedBytes(BarrierArriveOpInterface arrive) {
  int64_t expected = arrive.getExpectedBytes();
  Operation *op = arrive.getOperation();
  std::optional<Buffer> key = resolve(arrive.getArrivedBarrier());
  if (expected <= 0 || !key)
    return true;
  // Before it in the block, back to a wait: nothing else on the phase.
  for (Operation *o = op->getPrevNode(); o; o = o->getPrevNode()) {
    if (o->getNumRegions()) {
      if (hasEventOn(o, *key))
        return true; // something in a region: not decided here
      continue;
    }
    Value barrier = eventBarrier(o);
    std::optional<Buffer> b = barrier ? resolve(barrier) : std::nullopt;
    if (barrier && (!b || mayOverlap(*b, *key))) {
      if (isa<BarrierWaitOpInterface>(o) && b && mustOverlap(*b, *key))
        break;
      return true; // another event on the phase: not decided here
    }
  }
  int64_t delivered = 0;
  unsigned copies = 0;
  bool decided = false;
  Operation *o = op->getNextNode();
  for (; o; o = o->getNextNode()) {
    if (o->getNumRegions()) {
      if (!hasEventOn(o, *key))
        continue;
      auto loop = dyn_cast<scf::ForOp>(o);
      decided = loop && loopWaitsNext(loop, *key, /*first=*/true);
      break;
    }
    Value barrier = eventBarrier(o);
    if (!barrier)
      continue;
    std::optional<Buffer> b = resolve(barrier);
    if (b && !mayOverlap(*b, *key))
      continue;
    if (isa<BarrierWaitOpInterface>(o)) {
      decided = b && mustOverlap(*b, *key);
      break;
    }
    auto write = dyn_cast<BarrierCompletedWriteOpInterface>(o);
    if (!write || !b || !mustOverlap(*b, *key) ||
        write.getCompletionPredicate() != arrive.getArrivePredicate())
      return true; // another arrival, or a copy not certainly on this phase
    delivered += write.getCompletedBytes();
    ++copies;
  }
  if (!o) {
    // The block's end: a loop body runs on into its next iteration, a
    // function ends; a branch continues where we do not look.
    Operation *parent = op->getBlock()->getParentOp();
    if (isa<func::FuncOp>(parent))
      decided = true;
    else if (auto loop = dyn_cast<scf::ForOp>(parent))
      decided = loopWaitsNext(loop, *key, /*first=*/false);
  }
  if (!decided || delivered == expected)
    return true;
  op->emitError() << "'" << op->getName() << "' announces " << expected
                  << " transaction bytes, but the " << copies
                  << (copies == 1 ? " write" : " writes")
                  << " completing on this barrier before its next wait "
                  << "deliver " << delivered << " bytes: "
                  << (delivered < expected
                          ? "the phase never completes and the wait hangs"
                          : "the phase completes before all the data lands");
  return false;
}

static bool checkBarriers(func::FuncOp func) {
  bool ok = true;
  SmallVector<Buffer> arrived;
  bool unknownArrival = false;
  func.walk([&](BarrierArriveOpInterface a) {
    if (std::optional<Buffer> b = resolve(a.getArrivedBarrier()))
      arrived.push_back(*b);
    else
      unknownArrival = true;
    ok &= checkExpectedBytes(a);
  });
  if (unknownArrival)
    return ok;
  func.walk([&](BarrierWaitOpInterface w) {
    std::optional<Buffer> b = resolve(w.getWaitedBarrier());
    if (!b || llvm::any_of(arrived, [&](const Buffer &a) {
          return mayMeet(a, *b);
        }))
      return;
    Operation *op = w.getOperation();
    op->emitError() << "'" << op->getName() << "' waits on a barrier that "
                    << "nothing in this function arrives on (no expect or "
                    << "arrive on it): its phase never completes and the "
                    << "wait never returns";
    ok = false;
  });
  return ok;
}

// --- warp_specialize partitions -------------------------------------------

/// Accesses in concurrent partitions that nothing orders: a partition's
/// access with no barrier wait before it (in program order from the
/// partition's start) can run while another partition writes the same
/// bytes, whatever that one does, since only the start barrier orders
/// partitions and a barrier wait is how one learns of another's progress.
static bool checkUnorderedPartitions(WarpSpecializeOp ws,
                                     const llvm::DenseSet<Operation *> &known) {
  struct Access {
    Operation *op;
    Buffer buffer;
    bool write, ordered;
    unsigned region;
  };
  SmallVector<Access> accesses;
  for (auto [k, region] : llvm::enumerate(ws->getRegions())) {
    bool waited = false;
    region.walk<WalkOrder::PreOrder>([&](Operation *op) {
      waited |= isa<BarrierWaitOpInterface>(op);
      for (Value v : writtenBuffers(op))
        if (std::optional<Buffer> b = resolve(v))
          accesses.push_back({op, *b, true, waited, unsigned(k)});
      for (Value v : readBuffers(op))
        if (std::optional<Buffer> b = resolve(v))
          accesses.push_back({op, *b, false, waited, unsigned(k)});
    });
  }
  bool ok = true;
  // One report per pair, none for an op the dataflow already reported.
  llvm::DenseSet<Operation *> reported = known;
  for (const Access &a : accesses) {
    if (a.ordered || reported.contains(a.op))
      continue;
    for (const Access &b : accesses) {
      if (b.region == a.region || !(a.write || b.write) ||
          reported.contains(b.op) || !mustOverlap(a.buffer, b.buffer))
        continue;
      reported.insert(a.op);
      reported.insert(b.op);
      ok = false;
      InFlightDiagnostic d =
          a.op->emitError()
          << "'" << a.op->getName() << "' " << (a.write ? "writes" : "reads")
          << " shared memory that another warp_specialize partition "
          << (b.write ? "writes" : "reads")
          << ", with no barrier wait before it in this partition: the "
             "partitions run concurrently, and nothing orders the two "
             "(hand the buffer over with an mbarrier)";
      d.attachNote(b.op->getLoc()) << "the other partition's access";
      break;
    }
  }
  return ok;
}

struct CheckAsyncSafety
    : kiln::tile::impl::TileCheckAsyncSafetyPassBase<CheckAsyncSafety> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](func::FuncOp func) {
      ok &= checkBarriers(func);
      ok &= checkBarrierLifecycle(func);
      if (func.isExternal())
        return;
      Checker checker;
      checker.numWarps = getNumWarps(getOperation());
      checker.collectHandOffs(func);
      checker.collectCompilerRings(func);
      State state;
      checker.runBlock(func.getBody().front(), state);
      checker.atExit(state);
      checker.warnIdleWaits();
      ok &= !checker.failed;
      func.walk([&](WarpSpecializeOp ws) {
        ok &= checkUnorderedPartitions(ws, checker.reportedOps);
      });
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
