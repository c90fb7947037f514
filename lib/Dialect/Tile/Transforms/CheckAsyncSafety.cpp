//===- CheckAsyncSafety.cpp - Hangs and races of async ops, at compile time ===//
//
// Three mistakes that hang or race a kernel built from barrier-completed
// copies and asynchronous shared-memory reads, reported where they are
// certain from the IR alone:
//
//  * a wait on a barrier that no op in the function arrives on: its phase
//    can never complete, so the wait never returns;
//  * an arrival that announces N transaction bytes while the writes that
//    complete on the same barrier before its next wait deliver M != N: the
//    phase hangs (M < N) or completes before the data lands (M > N);
//  * a write to a shared buffer that an asynchronous read may still be
//    reading: no wait on the read's counter leaves few enough groups in
//    flight in between (a refilled ring slot, a store source rewritten).
//
// Buffers are compared by allocation and ring slot (RingSlot.h, shared with
// tile-insert-barriers): a slot indexed `(iv + c) % S` is kept symbolically,
// so `i % S` and `(i + S - 1) % S` are different slots in one iteration, and
// a read issued one iteration earlier is the slot `(iv - step + c) % S` of
// this one. Where equality is not certain the
// buffers are taken as different (no report): the checks never claim a
// hazard the IR does not show, and miss only the ones it cannot decide.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"
#include "kiln/Dialect/Tile/Transforms/RingSlot.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace kiln::tile {
#define GEN_PASS_DEF_TILECHECKASYNCSAFETYPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

// --- buffers -------------------------------------------------------------

/// A shared buffer: its allocation, the ring slot it stays in (RingSlot.h),
/// and whether it is the whole allocation or only part of its slot.
struct Buffer {
  Operation *root = nullptr;
  RingSlot slot;
  bool whole = false;   // no index or subslice between it and the allocation
  bool partial = false; // a subslice: not all of its slot

  void aroundBackEdge(Operation *loop) { slot = slot.aroundBackEdge(loop); }
  void leaving(Operation *op) { slot = slot.leaving(op); }
};

static std::optional<Buffer> resolve(Value memdesc) {
  LocalAllocOp root = getRootAllocation(memdesc);
  if (!root)
    return std::nullopt;
  Buffer b{root, getRingSlot(memdesc)};
  bool indexed = false;
  for (Operation *def = memdesc.getDefiningOp(); def && def != root;
       def = def->getOperand(0).getDefiningOp()) {
    indexed |= isa<MemDescIndexOp>(def);
    b.partial |= isa<MemDescSubsliceOp>(def);
  }
  b.whole = !indexed && !b.partial;
  return b;
}

/// The two buffers certainly share bytes: one allocation, and one of them
/// all of it or both all of one slot known to be the same.
static bool mustOverlap(const Buffer &a, const Buffer &b) {
  if (a.root != b.root || a.partial || b.partial)
    return false;
  return a.whole || b.whole || (a.slot.known() && a.slot == b.slot);
}

/// The two buffers may share bytes (in the same iteration).
static bool mayOverlap(const Buffer &a, const Buffer &b) {
  return a.root == b.root && !a.slot.disjoint(b.slot);
}

/// The two buffers may share bytes in some iterations: only different
/// constant slots never do.
static bool mayMeet(const Buffer &a, const Buffer &b) {
  if (a.root != b.root)
    return false;
  return !(a.slot.known() && b.slot.known() && !a.slot.base && !b.slot.base &&
           a.slot.offset != b.slot.offset);
}

// --- asynchronous reads in flight ----------------------------------------

struct Pending {
  Operation *op;
  unsigned generation; // how many back edges since it was issued
  StringRef counter;
  unsigned minAfter; // fewest groups of `counter` committed after it
  SmallVector<Buffer> buffers;
};

using State = SmallVector<Pending>;

static State join(const State &a, const State &b) {
  State out = a;
  for (const Pending &p : b) {
    auto it = llvm::find_if(out, [&](const Pending &q) {
      return q.op == p.op && q.generation == p.generation;
    });
    if (it == out.end())
      out.push_back(p);
    else
      it->minAfter = std::min(it->minAfter, p.minAfter);
  }
  return out;
}

static bool sameState(const State &a, const State &b) {
  if (a.size() != b.size())
    return false;
  for (const Pending &p : a)
    if (!llvm::any_of(b, [&](const Pending &q) {
          return q.op == p.op && q.generation == p.generation &&
                 q.minAfter == p.minAfter;
        }))
      return false;
  return true;
}

/// Shared buffers `op` writes (not counting buffers it allocates).
static SmallVector<Value> writtenBuffers(Operation *op) {
  SmallVector<Value> out;
  if (auto w = dyn_cast<BarrierCompletedWriteOpInterface>(op))
    out.push_back(w.getDst());
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    auto add = [&](Value v) {
      if (v && isa<MemDescType>(v.getType()) && v.getDefiningOp() != op &&
          !llvm::is_contained(out, v))
        out.push_back(v);
    };
    for (auto &e : list) {
      if (!isa<MemoryEffects::Write>(e.getEffect()))
        continue;
      if (Value v = e.getValue()) {
        add(v);
        continue;
      }
      // An op-wide write (tile.local_store): the buffers it names.
      for (Value operand : op->getOperands())
        add(operand);
    }
  }
  return out;
}

class Checker {
public:
  bool failed = false;

  void runBlock(Block &block, State &state) {
    for (Operation &op : block)
      runOp(op, state);
  }

private:
  llvm::DenseSet<std::pair<Operation *, Operation *>> reported;
  static constexpr unsigned kMaxGenerations = 4;

  void runOp(Operation &op, State &state) {
    for (Value v : writtenBuffers(&op)) {
      std::optional<Buffer> written = resolve(v);
      if (!written)
        continue;
      for (const Pending &p : state)
        for (const Buffer &b : p.buffers)
          if (mustOverlap(b, *written))
            report(&op, p);
    }
    if (auto read = dyn_cast<AsyncReadOpInterface>(&op)) {
      StringRef counter = read.getAsyncReadCounter();
      if (!read.isAsyncReadInFlight()) { // it waits for its counter itself
        llvm::erase_if(state, [&](const Pending &p) {
          return p.counter == counter;
        });
      } else {
        for (Pending &p : state)
          if (p.counter == counter)
            ++p.minAfter;
        Pending p{&op, 0, counter, 0, {}};
        for (Value v : read.getAsyncReadBuffers())
          if (std::optional<Buffer> b = resolve(v))
            p.buffers.push_back(*b);
        state.push_back(std::move(p));
      }
    }
    if (auto wait = dyn_cast<AsyncReadWaitOpInterface>(&op)) {
      StringRef counter = wait.getAsyncReadCounter();
      unsigned left = wait.getMaxPendingGroups();
      llvm::erase_if(state, [&](const Pending &p) {
        return p.counter == counter && p.minAfter >= left;
      });
    }
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
    // Other regions (scf.while, ...): walked once, values left behind.
    for (Region &region : op.getRegions())
      for (Block &block : region) {
        State inner = state;
        runBlock(block, inner);
        state = join(state, inner);
        for (Pending &p : state)
          for (Buffer &b : p.buffers)
            b.leaving(&op);
      }
  }

  void runFor(scf::ForOp loop, State &state) {
    State entry = state;
    for (Pending &p : entry)
      for (Buffer &b : p.buffers)
        b.slot = b.slot.enteringLoop(loop);
    State in = entry, exits = state;
    for (unsigned round = 0; round < kMaxGenerations; ++round) {
      State body = in;
      runBlock(*loop.getBody(), body);
      exits = join(exits, body);
      // Around the back edge: the next iteration sees these one step back.
      State carried;
      for (Pending p : body) {
        if (++p.generation > kMaxGenerations)
          continue;
        for (Buffer &b : p.buffers)
          b.aroundBackEdge(loop);
        carried.push_back(std::move(p));
      }
      State next = join(entry, carried);
      if (sameState(next, in))
        break;
      in = std::move(next);
    }
    for (Pending &p : exits)
      for (Buffer &b : p.buffers)
        b.leaving(loop);
    state = std::move(exits);
  }

  void report(Operation *writer, const Pending &p) {
    if (!reported.insert({writer, p.op}).second)
      return;
    failed = true;
    InFlightDiagnostic d = writer->emitError()
        << "'" << writer->getName() << "' writes a shared buffer that the "
        << "asynchronous read of '" << p.op->getName() << "' may still be "
        << "reading: no wait on the '" << p.counter << "' counter with at "
        << "most " << p.minAfter << " pending comes between them";
    if (p.generation)
      d << " (the read was issued " << p.generation
        << (p.generation == 1 ? " iteration" : " iterations") << " earlier)";
    d.attachNote(p.op->getLoc()) << "the asynchronous read";
  }
};

// --- barriers ------------------------------------------------------------

/// The barrier `o` waits on, arrives on or completes a write on.
static Value eventBarrier(Operation *o) {
  if (auto w = dyn_cast<BarrierWaitOpInterface>(o))
    return w.getWaitedBarrier();
  if (auto a = dyn_cast<BarrierArriveOpInterface>(o))
    return a.getArrivedBarrier();
  if (auto c = dyn_cast<BarrierCompletedWriteOpInterface>(o))
    return c.getCompletionBarrier();
  return {};
}

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

struct CheckAsyncSafety
    : kiln::tile::impl::TileCheckAsyncSafetyPassBase<CheckAsyncSafety> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](func::FuncOp func) {
      ok &= checkBarriers(func);
      if (func.isExternal())
        return;
      Checker checker;
      State state;
      checker.runBlock(func.getBody().front(), state);
      ok &= !checker.failed;
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
