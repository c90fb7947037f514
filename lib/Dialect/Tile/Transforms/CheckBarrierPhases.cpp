//===- CheckBarrierPhases.cpp - Barrier phases that cannot complete -------===//
//
// Part of tile-check-async-safety: errors for barrier phases that can never
// complete as the IR is written:
//
//  * a wait on a barrier that no op in the function arrives on: its phase
//    can never complete, so the wait never returns;
//  * an arrival that announces N transaction bytes while the writes that
//    complete on the same barrier before its next wait deliver M != N: the
//    phase hangs (M < N) or completes before the data lands (M > N).
//
// Each is decided from the arrival's block (and the loop it sits in) alone;
// anything else on the same barrier in between leaves it undecided (no
// report).
//
//===----------------------------------------------------------------------===//

#include "AsyncSafety.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile::async;

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
    if (write.getCompletedBytes() < 0)
      return true; // bytes only the run time knows: not decided here
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

bool async::checkBarrierPhases(func::FuncOp func) {
  bool ok = true;
  SmallVector<Buffer, 0> arrived;
  bool unknownArrival = false;
  func.walk([&](BarrierArriveOpInterface a) {
    if (std::optional<Buffer> b = resolve(a.getArrivedBarrier()))
      arrived.push_back(*b);
    else
      unknownArrival = true;
    ok &= checkExpectedBytes(a);
  });
  // cp.async arrivals that count (.noinc: one per thread once its copies land)
  func.walk([&](AsyncCopyArriveOpInterface a) {
    if (a.getCopiesArrivalCount() == 0)
      return;
    if (std::optional<Buffer> b = resolve(a.getCopiesBarrier()))
      arrived.push_back(*b);
    else
      unknownArrival = true;
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
