//===- CheckBarrierLifecycle.cpp - Barriers used outside their life -------===//
//
// Part of tile-check-async-safety: errors for barriers in shared memory
// (ops implementing the barrier init / invalidate / arrive / wait
// interfaces) that
//
//  * are waited or arrived on but never initialized in the function;
//  * are first waited on, right after their init in the same block, at the
//    constant parity 1: on a fresh barrier phase 0 is in progress and the
//    "previous" phase of parity 1 counts as complete, so the wait returns
//    at once, before anything it waits for has happened; or are waited on
//    twice in a row (same block) at the same constant parity: the second
//    wait sees the phase the first saw complete and returns at once;
//  * are initialized for more arrivals per phase than all the arrivals on
//    them can bring: an arrival outside a loop, or in a loop that also
//    waits on that barrier, arrives (at most) once a phase, so when every
//    arrival is of these kinds their counts bound a phase's arrivals;
//  * are waited or arrived on after their invalidate with no init between;
//  * are waited on at a constant parity in a loop that arrives on them every
//    iteration (each completed phase flips the parity the wait must name).
//
// Like the rest of the check, each needs certainty: an arrival in a loop
// that does not wait on its barrier may arrive any number of times, and a
// barrier the analysis cannot name is not judged.
//
//===----------------------------------------------------------------------===//

#include "AsyncSafety.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile::async;

namespace {

struct Uses {
  SmallVector<BarrierInitOpInterface> inits;
  SmallVector<BarrierInvalidateOpInterface> invalidates;
  SmallVector<BarrierArriveOpInterface> arrivals;
  /// cp.async arrivals that count against a phase (.noinc)
  SmallVector<AsyncCopyArriveOpInterface> copyArrivals;
  SmallVector<BarrierWaitOpInterface> waits;
  bool unknown = false; // a barrier op whose barrier has no known allocation
};

std::optional<Buffer> barrierOf(Operation *op) {
  if (auto i = dyn_cast<BarrierInitOpInterface>(op))
    return resolve(i.getInitializedBarrier());
  if (auto v = dyn_cast<BarrierInvalidateOpInterface>(op))
    return resolve(v.getInvalidatedBarrier());
  if (Value b = eventBarrier(op))
    return resolve(b);
  return std::nullopt;
}

bool isBarrierOp(Operation *op) {
  return isa<BarrierInitOpInterface, BarrierInvalidateOpInterface,
             BarrierArriveOpInterface, BarrierWaitOpInterface>(op);
}

/// Whether an op nested in `op` initializes, invalidates, waits or arrives
/// on a barrier of `key`'s allocation (or one not known).
bool touchesBarrier(Operation *op, const Buffer &key) {
  WalkResult r = op->walk([&](Operation *inner) {
    if (inner == op || !isBarrierOp(inner))
      return WalkResult::advance();
    std::optional<Buffer> b = barrierOf(inner);
    return !b || b->root == key.root ? WalkResult::interrupt()
                                     : WalkResult::advance();
  });
  return r.wasInterrupted();
}

std::string opName(Operation *op) {
  return ("'" + op->getName().getStringRef() + "'").str();
}

/// A wait or arrival on a barrier nothing in the function initializes.
bool checkInitialized(const Uses &uses) {
  if (uses.unknown)
    return true;
  SmallVector<Buffer, 0> inited;
  for (BarrierInitOpInterface i : uses.inits)
    inited.push_back(*barrierOf(i));
  bool ok = true;
  auto check = [&](Operation *op) {
    std::optional<Buffer> b = barrierOf(op);
    if (llvm::any_of(inited, [&](const Buffer &i) { return mayMeet(i, *b); }))
      return;
    op->emitError() << opName(op)
                    << " uses a barrier that nothing in this function "
                       "initializes (no mbarrier init on it): its word holds "
                       "no phase or arrival count, and waits on it hang or "
                       "return at random";
    ok = false;
  };
  for (BarrierWaitOpInterface w : uses.waits)
    check(w);
  for (BarrierArriveOpInterface a : uses.arrivals)
    check(a);
  return ok;
}

/// The op that ran right before `op` in straight-line code: the previous op
/// of its block, or, at the start of an scf.if branch, the one before the
/// if; null at the start of any other region (a loop body follows its own
/// previous iteration too).
Operation *previousInLine(Operation *op) {
  if (Operation *prev = op->getPrevNode())
    return prev;
  Operation *parent = op->getParentOp();
  return isa_and_nonnull<scf::IfOp>(parent) ? previousInLine(parent) : nullptr;
}

/// A wait that returns at once in straight-line code: the first wait after
/// the init at parity 1, or a wait at the parity the previous wait on the
/// barrier (in line before it, out of if branches too, nothing else waiting
/// in between) already saw complete.
bool checkParities(const Uses &uses) {
  bool ok = true;
  for (BarrierWaitOpInterface wait : uses.waits) {
    std::optional<int64_t> parity = constantInt(wait.getWaitedParity());
    if (!parity)
      continue;
    Buffer key = *barrierOf(wait);
    for (Operation *o = previousInLine(wait); o; o = previousInLine(o)) {
      if (o->getNumRegions()) {
        if (touchesBarrier(o, key))
          break;
        continue;
      }
      if (!isBarrierOp(o) || isa<BarrierArriveOpInterface>(o) ||
          isa<BarrierCompletedWriteOpInterface>(o))
        continue;
      std::optional<Buffer> b = barrierOf(o);
      if (!b || !mayOverlap(*b, key))
        continue;
      if (isa<BarrierInitOpInterface>(o) && mustOverlap(*b, key) &&
          (*parity & 1) == 1) {
        InFlightDiagnostic d =
            wait->emitError()
            << opName(wait)
            << " is the first wait on this barrier after its init and waits "
               "for parity 1: on a fresh barrier phase 0 is in progress and "
               "a wait for parity 1 returns at once; the first phase has "
               "parity 0";
        d.attachNote(o->getLoc()) << "the init";
        ok = false;
      }
      auto before = dyn_cast<BarrierWaitOpInterface>(o);
      std::optional<int64_t> earlier =
          before ? constantInt(before.getWaitedParity()) : std::nullopt;
      if (before && mustOverlap(*b, key) && earlier &&
          (*earlier & 1) == (*parity & 1)) {
        InFlightDiagnostic d =
            wait->emitError()
            << opName(wait) << " waits for parity " << (*parity & 1)
            << " again right after a wait for it on this barrier: that phase "
               "is complete, so the wait returns at once; the next phase has "
               "parity "
            << ((*parity & 1) ^ 1);
        d.attachNote(o->getLoc()) << "the previous wait";
        ok = false;
      }
      break;
    }
  }
  return ok;
}

/// The innermost loop around `op` inside `func`, if any.
Operation *enclosingLoop(Operation *op, func::FuncOp func) {
  for (Operation *p = op->getParentOp(); p && p != func; p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      return p;
  return nullptr;
}

/// A wait at a constant parity in a loop whose body arrives on that barrier
/// every iteration (and does not init it again): the phases the arrivals
/// complete flip the parity, so from the second iteration the wait returns
/// at once for a phase already complete (or hangs).
bool checkLoopParities(const Uses &uses, func::FuncOp func) {
  bool ok = true;
  for (BarrierWaitOpInterface wait : uses.waits) {
    std::optional<int64_t> parity = constantInt(wait.getWaitedParity());
    auto loop = dyn_cast_or_null<scf::ForOp>(enclosingLoop(wait, func));
    if (!parity || !loop || wait->getBlock() != loop.getBody())
      continue;
    if (std::optional<APInt> trips = loop.getStaticTripCount();
        trips && trips->ule(1))
      continue;
    Buffer key = *barrierOf(wait);
    Operation *arrival = nullptr;
    bool reinit = false;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isa<BarrierArriveOpInterface>(op) && mustOverlap(*barrierOf(&op), key))
        arrival = arrival ? arrival : &op;
      if (isa<BarrierInitOpInterface>(op) && mayMeet(*barrierOf(&op), key))
        reinit = true;
    }
    if (!arrival || reinit)
      continue;
    InFlightDiagnostic d =
        wait->emitError()
        << opName(wait) << " waits for the constant parity " << (*parity & 1)
        << " in a loop that arrives on this barrier every iteration: each "
           "phase completed flips the parity, so from the second iteration "
           "the wait returns at once for a phase already complete (or "
           "hangs); carry the phase in the loop and flip it after each wait "
           "(phase ^= 1)";
    d.attachNote(arrival->getLoc()) << "the arrival in the loop";
    ok = false;
  }
  return ok;
}

/// An init's count no phase's arrivals can reach.
bool checkArrivalCounts(const Uses &uses, func::FuncOp func) {
  if (uses.unknown)
    return true;
  bool ok = true;
  for (BarrierInitOpInterface init : uses.inits) {
    Buffer key = *barrierOf(init);
    if (!llvm::any_of(uses.waits, [&](BarrierWaitOpInterface w) {
          return mayMeet(*barrierOf(w), key);
        }))
      continue; // never waited on: no hang to report
    int64_t most = 0;
    bool bounded = true;
    auto count = [&](Operation *arrive, const Buffer &b, int64_t n) {
      if (!bounded || !mayMeet(b, key))
        return;
      if (Operation *loop = enclosingLoop(arrive, func)) {
        bool waitsThere = false;
        loop->walk([&](BarrierWaitOpInterface w) {
          waitsThere |= barrierOf(w)->root == b.root;
        });
        if (!waitsThere) {
          bounded = false;
          return;
        }
      }
      most += n;
    };
    for (BarrierArriveOpInterface arrive : uses.arrivals)
      count(arrive, *barrierOf(arrive), arrive.getArrivalCount());
    for (AsyncCopyArriveOpInterface arrive : uses.copyArrivals)
      if (std::optional<Buffer> b = resolve(arrive.getCopiesBarrier()))
        count(arrive, *b, arrive.getCopiesArrivalCount());
    int64_t expected = init.getExpectedArrivals();
    // No arrival at all is the wait's error (checkBarriers: nothing arrives).
    if (!bounded || most >= expected || most == 0)
      continue;
    init->emitError() << opName(init) << " sets the barrier up for "
                      << expected << " arrivals per phase, but the arrivals "
                      << "on it in this function bring at most " << most
                      << " per phase: no phase completes and every wait on "
                         "it hangs";
    ok = false;
  }
  return ok;
}

/// A wait or arrival after the barrier's invalidate, no init between.
bool checkAfterInvalidate(const Uses &uses) {
  bool ok = true;
  auto check = [&](Operation *use) {
    Buffer b = *barrierOf(use);
    for (BarrierInvalidateOpInterface inval : uses.invalidates) {
      Buffer v = *barrierOf(inval);
      if (!mustOverlap(v, b))
        continue;
      Block *block = inval->getBlock();
      Operation *at = block->findAncestorOpInBlock(*use);
      if (!at || !inval->isBeforeInBlock(at))
        continue;
      bool rearmed = llvm::any_of(uses.inits, [&](BarrierInitOpInterface i) {
        Operation *ia = block->findAncestorOpInBlock(*i);
        return ia && mayMeet(*barrierOf(i), v) && inval->isBeforeInBlock(ia) &&
               (ia == at || ia->isBeforeInBlock(at));
      });
      if (rearmed)
        continue;
      InFlightDiagnostic d = use->emitError()
                             << opName(use)
                             << " uses a barrier after its invalidate, with "
                                "no init between: its word is ordinary "
                                "shared memory again";
      d.attachNote(inval->getLoc()) << "the invalidate";
      ok = false;
      return;
    }
  };
  for (BarrierWaitOpInterface w : uses.waits)
    check(w);
  for (BarrierArriveOpInterface a : uses.arrivals)
    check(a);
  return ok;
}

} // namespace

bool async::checkBarrierLifecycle(func::FuncOp func) {
  Uses uses;
  func.walk([&](Operation *op) {
    if (auto a = dyn_cast<AsyncCopyArriveOpInterface>(op);
        a && a.getCopiesArrivalCount() > 0)
      uses.copyArrivals.push_back(a);
    if (!isBarrierOp(op) || isa<BarrierCompletedWriteOpInterface>(op))
      return;
    if (!barrierOf(op)) {
      uses.unknown = true;
      return;
    }
    if (auto i = dyn_cast<BarrierInitOpInterface>(op))
      uses.inits.push_back(i);
    if (auto v = dyn_cast<BarrierInvalidateOpInterface>(op))
      uses.invalidates.push_back(v);
    if (auto a = dyn_cast<BarrierArriveOpInterface>(op))
      uses.arrivals.push_back(a);
    if (auto w = dyn_cast<BarrierWaitOpInterface>(op))
      uses.waits.push_back(w);
  });
  bool ok = checkInitialized(uses);
  ok &= checkParities(uses);
  ok &= checkLoopParities(uses, func);
  ok &= checkArrivalCounts(uses, func);
  ok &= checkAfterInvalidate(uses);
  return ok;
}
