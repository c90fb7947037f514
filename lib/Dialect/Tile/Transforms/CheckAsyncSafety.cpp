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
//    barrier a barrier-completed write (TMA) lands on. Not a copy over the
//    bytes an earlier copy of the same kind (op, operand types and layouts)
//    may still be writing where a thread's copies land in issue order
//    (TargetDesc::asyncCopiesLandInOrder): each byte of the slot comes from
//    the same thread both times, so the later data lands last, as in
//    program order (a pipeline that refills a half it never reads);
//  * an asynchronous read (TMA store, wgmma) of bytes the CTA's threads
//    wrote with no async-proxy fence in between;
//  * a ring slot released while an asynchronous read of it may still be in
//    flight: an arrival on the barrier at index s of an allocation that a
//    refill waits on, at the same index, before it writes slot s of the
//    buffer the read reads (a consumer arriving on `empty[s]` before its
//    wgmma of `bufs[s]` is waited for; the producer may refill it under the
//    read);
//  * a kernel that can end with an asynchronous read still in flight (a
//    TMA store never waited for);
//  * an access in one warp_specialize partition, with no barrier wait
//    before it there, of bytes another partition writes;
//  * (a warning) a wait for more commit groups than can be in flight;
//  * the lifecycle of barriers (CheckBarrierLifecycle.cpp).
//
// The first two are decided per barrier (CheckBarrierPhases.cpp), the
// partitions' accesses by checkUnorderedPartitions below.
//
// What may be in flight before each op is the shared analysis's
// (kiln/Analysis/AsyncState.h); this pass is its client that turns overlaps
// into errors. Buffers are compared by allocation and ring slot (RingSlot.h):
// a slot indexed `(iv + c) % S` is kept symbolically, so `i % S` and
// `(i + S - 1) % S` are different slots in one iteration, and an access one
// iteration earlier is the slot `(iv - step + c) % S` of this one. Where equality is not certain the buffers are taken as different (no
// report): the checks never claim a hazard the IR does not show, and miss
// only the ones it cannot decide. The pass runs after tile-insert-wait-counts
// so that waits on tokens carry their group counts.
//
//===----------------------------------------------------------------------===//

#include "AsyncSafety.h"
#include "kiln/Analysis/AsyncState.h"

#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <optional>

namespace kiln::tile {
#define GEN_PASS_DEF_TILECHECKASYNCSAFETYPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile::async;

namespace {

/// "another group of 4 warps", "one elected thread".
std::string describeGroup(unsigned threads) {
  if (threads == 1)
    return "one elected thread";
  if (threads % 32 == 0)
    return "another group of " + std::to_string(threads / 32) + " warps";
  return "another group of " + std::to_string(threads) + " threads";
}

/// Two copies that spread their bytes over the same lanes: the same op with
/// operands of the same types (destination view, source layouts). Into the
/// same slot, each byte then comes from the same wave and lane in both.
bool sameLanes(Operation *a, Operation *b) {
  return a->getName() == b->getName() &&
         llvm::equal(a->getOperandTypes(), b->getOperandTypes());
}

/// Turns what the walk finds in flight before each access into errors.
class Checker : public AsyncStateClient {
public:
  bool failed = false;
  /// The target's async copies of one thread land in issue order: a copy
  /// may overwrite bytes an earlier copy of its kind is still writing.
  bool copiesLandInOrder = false;

  /// The rings the pipeliner built (the destinations of the copies it
  /// tagged tile.pipeline_part). On them the check is translation
  /// validation: an access that may touch a slot a copy or read may still
  /// use is an error, not only one that certainly does.
  /// The destination of an async copy or a barrier-completed write, else
  /// null.
  static Value copyDestination(Operation *op) {
    if (auto copy = dyn_cast<AsyncCopyOpInterface>(op))
      return copy.getDst();
    if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(op))
      return write.getDst();
    return Value();
  }

  void collectCompilerRings(func::FuncOp func) {
    func.walk([&](Operation *op) {
      if (!TileDialect::PipelinePartAttrHelper(op->getContext()).getAttr(op))
        return;
      Value dst = copyDestination(op);
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

  /// A write (an async copy or a barrier-completed write) and the barrier
  /// its block waits on last before it: a refill and the release it waits
  /// for.
  struct Refill {
    Operation *write;
    Buffer written, waited;
    bool sameIndex; // the slot and the barrier are taken at one index
  };
  SmallVector<Refill, 0> refills;

  void collectRefills(func::FuncOp func) {
    func.walk([&](Operation *op) {
      Value dst = copyDestination(op);
      if (!dst)
        return;
      std::optional<Buffer> written = resolve(dst);
      if (!written)
        return;
      // The last wait before it, in its block or (out of an `if`) before
      // the op that holds it; not across a loop's or partition's start.
      BarrierWaitOpInterface wait =
          lastBarrierWaitBefore(op, /*crossLoops=*/false);
      if (!wait)
        return;
      if (std::optional<Buffer> waited = resolve(wait.getWaitedBarrier()))
        refills.push_back({op, *written, *waited,
                           sameIndex(written->slot, waited->slot) ||
                               sameIndexValue(dst, wait.getWaitedBarrier())});
    });
  }

  void visit(Operation *op, const AsyncState &before) override {
    checkEarlyRelease(op, before);
    auto conflicts = [&](const Buffer &a, const Buffer &b) {
      return conflict(a, b);
    };
    for (const Hazard &h : before.hazards(op, conflicts)) {
      const InFlight &p = *h.work;
      if (copiesLandInOrder && h.isWrite && p.kind == Kind::Copy &&
          !p.foreign && sameLanes(p.op, op))
        continue; // an earlier copy the same way: it lands first (above)
      if (h.isWrite && p.kind == Kind::AsyncRead)
        reportReadInFlight(op, p, compilerRings.contains(h.accessed.root));
      else if (p.kind == Kind::Unfenced)
        reportUnfenced(op, p);
      else
        reportWriteInFlight(op, p, h.isWrite);
    }
    if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
      int &most = waitMaxGroups.try_emplace(wait, 0).first->second;
      most = std::max(most, before.maxGroups);
    }
    // A relaxed load (the user's assertion that no copy into its bytes is
    // in flight): whether, on some visit, one may be.
    if (relaxedLoads)
      if (auto load = dyn_cast<LocalLoadOp>(op);
          load && TileDialect::SyncedViaWaitAttrHelper(op->getContext())
                      .isAttrPresent(op)) {
        // By allocation and slot; an unnamed buffer on either side may be
        // the same.
        std::optional<Buffer> read = resolve(load.getSrc());
        bool inFlight = !read;
        for (const InFlight &p : before.pending) {
          if (p.kind != Kind::Copy && p.kind != Kind::BarrierWrite)
            continue;
          inFlight |= p.buffers.empty();
          for (const Buffer &b : p.buffers)
            inFlight |= !b.root || !read || mayOverlap(b, *read);
        }
        (*relaxedLoads)[op->getLoc()] |= inFlight;
      }
  }

  /// Where set: each relaxed load's location, and whether a copy into its
  /// bytes may be in flight there on some visit.
  llvm::DenseMap<Location, bool> *relaxedLoads = nullptr;


  /// The kernel ends: nothing asynchronous may still read its shared
  /// memory, which the next CTA on the SM may be given.
  void atExit(const AsyncState &state) {
    for (const InFlight &p : state.pending) {
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

  /// The same index of two allocations (a ring of buffers and the ring of
  /// barriers that guards it): certainly, as RingSlot::same says it of one.
  static bool sameIndex(const RingSlot &a, const RingSlot &b) {
    if (a.literal >= 0 && a.literal == b.literal)
      return true;
    return a.known() && b.known() && a.base && a.base == b.base &&
           a.offset == b.offset && a.modulus == b.modulus;
  }

  /// The index operand of the memdesc_index a view comes from (through
  /// permutes, subslices and reshapes), with the indexed allocation's
  /// number of slots; null where there is none.
  static std::pair<Value, int64_t> viewIndex(Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (auto index = dyn_cast<MemDescIndexOp>(def))
        return {index.getIndex(),
                cast<MemDescType>(index.getSrc().getType()).getShape()[0]};
      if (!isa<MemDescPermuteOp, MemDescSubsliceOp, MemDescReshapeOp>(def))
        break;
      v = def->getOperand(0);
    }
    return {Value(), 0};
  }
  /// Two views taken at one index value of allocations of as many slots
  /// (the index of a ring of buffers and of the ring of its barriers, both
  /// computed once in the same iteration).
  static bool sameIndexValue(Value a, Value b) {
    auto [ia, na] = viewIndex(a);
    auto [ib, nb] = viewIndex(b);
    return ia && ia == ib && na == nb;
  }

  /// An arrival that releases slot s (the barrier at index s of an
  /// allocation a refill of the buffer's slot s waits on at index s) while
  /// an asynchronous read of that slot, not waited for by its own threads,
  /// may still be in flight. The read's slot is the barrier's when both are
  /// the same ring slot, or (a read of this iteration) both views are taken
  /// at one index value.
  void checkEarlyRelease(Operation *op, const AsyncState &before) {
    auto arrive = dyn_cast<BarrierArriveOpInterface>(op);
    if (!arrive || refills.empty() || arrive.getExpectedBytes() ||
        isa<BarrierCompletedWriteOpInterface>(op))
      return;
    Value barrier = arrive.getArrivedBarrier();
    std::optional<Buffer> bar = resolve(barrier);
    if (!bar)
      return;
    for (const InFlight &p : before.pending) {
      if (p.kind != Kind::AsyncRead || p.retiredByIssuers)
        continue;
      // The allocations of the slots this read certainly shares with the
      // barrier's index.
      SmallVector<Operation *, 2> roots;
      for (const Buffer &read : p.buffers)
        if (read.root && sameIndex(read.slot, bar->slot))
          roots.push_back(read.root);
      if (p.generation == 0)
        for (Value v : readBuffers(p.op))
          if (sameIndexValue(v, barrier))
            if (std::optional<Buffer> read = resolve(v); read && read->root)
              roots.push_back(read->root);
      for (Operation *root : roots) {
        for (const Refill &r : refills) {
          if (r.written.root != root || r.waited.root != bar->root ||
              r.write == op || !r.sameIndex)
            continue;
          if (!claimPair(op, p.op))
            return;
          InFlightDiagnostic d = op->emitError()
              << "'" << op->getName() << "' releases a ring slot that the "
              << "asynchronous read of '" << p.op->getName() << "' may still "
              << "be reading: the refill that waits on this barrier can land "
              << "under the read (no wait on the '" << p.counter
              << "' counter with at most " << p.minAfter
              << " pending comes before the arrival)";
          noteGeneration(d, p, "the read");
          d.attachNote(p.op->getLoc()) << "the asynchronous read";
          d.attachNote(r.write->getLoc())
              << "the refill, after a wait on the same slot's barrier";
          return;
        }
      }
    }
  }

  void reportReadInFlight(Operation *writer, const InFlight &p,
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
        << "asynchronous read of '" << p.op->getName() << "' by "
        << describeGroup(
               cast<AsyncReadOpInterface>(p.op).getAsyncReadGroupThreads())
        << " may still be reading: a wait on the '" << p.counter
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

  void reportWriteInFlight(Operation *accessor, const InFlight &p,
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

  /// The first report of `at` against `cause`: marks the check failed and
  /// `at` reported; false when the pair was reported already.
  bool claimPair(Operation *at, Operation *cause) {
    if (!reported.insert({at, cause}).second)
      return false;
    failed = true;
    reportedOps.insert(at);
    return true;
  }

  void reportUnfenced(Operation *reader, const InFlight &p) {
    if (!claimPair(reader, p.op))
      return;
    InFlightDiagnostic d = reader->emitError()
        << "'" << reader->getName() << "' reads shared memory asynchronously "
        << "(async proxy) that '" << p.op->getName() << "' wrote with no "
        << "fence_async_shared between them: the asynchronous read may not "
        << "see those writes";
    noteGeneration(d, p, "it");
    d.attachNote(p.op->getLoc()) << "the write";
  }

  static void noteGeneration(InFlightDiagnostic &d, const InFlight &p,
                             StringRef what) {
    if (p.generation)
      d << " (" << what << " was issued " << p.generation
        << (p.generation == 1 ? " iteration" : " iterations") << " earlier)";
  }
};

// --- warp_specialize partitions -------------------------------------------

/// Accesses in concurrent partitions that nothing orders: a partition's
/// access with no barrier wait before it (in program order from the
/// partition's start) can run while another partition writes the same
/// bytes, whatever that one does, since only the start barrier orders
/// partitions and a barrier wait is how one learns of another's progress.
/// Except where the other access waits, before it, on a barrier that the
/// first one's partition signals only after it (the write completes on it,
/// or an arrival on it follows): the first happens before the other (a
/// producer's one load of a buffer its consumer reads once it has landed).
static bool checkUnorderedPartitions(WarpSpecializeOp ws,
                                     const llvm::DenseSet<Operation *> &known) {
  struct Access {
    Operation *op;
    Buffer buffer;
    bool write, ordered;
    unsigned region, position;
    SmallVector<Buffer, 2> waitedBefore; // barriers waited on before it
  };
  struct Signal {
    Buffer barrier;
    unsigned region, position;
    bool completion;  // a write completing on the barrier (not an arrival)
    int64_t bytes = 0; // a completion's bytes; an arrival's announced bytes
  };
  SmallVector<Access, 0> accesses;
  SmallVector<Signal, 0> signals;
  // Arrivals (with or without transaction bytes) and waits on each barrier:
  // what separates one phase's writes from the next's in program order.
  SmallVector<Signal, 0> boundaries;
  // Positions of arrivals, waits and completions on barriers that cannot be
  // followed.
  SmallVector<std::pair<unsigned, unsigned>, 0> unknownBoundaries;
  for (auto [k, region] : llvm::enumerate(ws->getRegions())) {
    SmallVector<Buffer, 2> waited;
    bool anyWait = false;
    unsigned position = 0;
    region.walk<WalkOrder::PreOrder>([&](Operation *op) {
      ++position;
      if (auto wait = dyn_cast<BarrierWaitOpInterface>(op)) {
        anyWait = true;
        if (std::optional<Buffer> b = resolve(wait.getWaitedBarrier())) {
          waited.push_back(*b);
          boundaries.push_back({*b, unsigned(k), position, false});
        } else {
          unknownBoundaries.push_back({unsigned(k), position});
        }
      }
      // An arrival announcing transaction bytes completes no phase by itself
      // (the writes it expects do): the expect before a load is not a signal.
      if (auto arrive = dyn_cast<BarrierArriveOpInterface>(op)) {
        if (std::optional<Buffer> b = resolve(arrive.getArrivedBarrier())) {
          boundaries.push_back({*b, unsigned(k), position, false,
                                arrive.getExpectedBytes()});
          if (!arrive.getExpectedBytes())
            signals.push_back({*b, unsigned(k), position, false});
        } else {
          unknownBoundaries.push_back({unsigned(k), position});
        }
      }
      if (auto done = dyn_cast<BarrierCompletedWriteOpInterface>(op)) {
        if (std::optional<Buffer> b = resolve(done.getCompletionBarrier()))
          signals.push_back(
              {*b, unsigned(k), position, true, done.getCompletedBytes()});
        else
          unknownBoundaries.push_back({unsigned(k), position});
      }
      for (Value v : writtenBuffers(op))
        if (std::optional<Buffer> b = resolve(v))
          accesses.push_back(
              {op, *b, true, anyWait, unsigned(k), position, waited});
      for (Value v : readBuffers(op))
        if (std::optional<Buffer> b = resolve(v))
          accesses.push_back(
              {op, *b, false, anyWait, unsigned(k), position, waited});
    });
  }
  // Whether `b` waits, before it, on a barrier that `a`'s partition signals
  // at or after `a` and never before it, `a` running once a call (in no loop
  // of its partition: a second run would follow b's wait). A write that
  // completes on the barrier before `a`, where `a` itself completes on it and
  // no arrival or wait on it lies between the two, is no earlier signal: the
  // two land in one phase, which completes only when the bytes announced for
  // it have all landed, `a`'s included: the expect that opens the group
  // announces more bytes than the group's other writes deliver.
  auto completesOn = [&](const Access &a, const Buffer &bar) {
    auto done = dyn_cast<BarrierCompletedWriteOpInterface>(a.op);
    if (!done)
      return false;
    std::optional<Buffer> b = resolve(done.getCompletionBarrier());
    return b && mustOverlap(*b, bar);
  };
  auto samePhase = [&](const Signal &s, const Access &a, const Buffer &bar) {
    if (!s.completion || !completesOn(a, bar))
      return false;
    // The group around `a`: from the last arrival or wait on `bar` before it
    // (which must be an expect, before `s`) to the next one after it.
    const Signal *open = nullptr;
    unsigned close = ~0u;
    for (const Signal &edge : boundaries) {
      if (edge.region != a.region || !mayOverlap(edge.barrier, bar))
        continue;
      if (edge.position < a.position &&
          (!open || edge.position > open->position))
        open = &edge;
      if (edge.position > a.position)
        close = std::min(close, edge.position);
    }
    if (!open || open->position > s.position || open->bytes <= 0 ||
        !mustOverlap(open->barrier, bar))
      return false;
    for (auto [region, position] : unknownBoundaries)
      if (region == a.region && position > open->position && position < close)
        return false;
    int64_t others = 0;
    for (const Signal &w : signals)
      if (w.region == a.region && w.position > open->position &&
          w.position < close && w.position != a.position &&
          mayOverlap(w.barrier, bar))
        others += w.completion && w.bytes >= 0 ? w.bytes : int64_t(1) << 40;
    return others < open->bytes;
  };
  auto happensBefore = [&](const Access &a, const Access &b) {
    for (Operation *p = a.op->getParentOp(); p && p != ws.getOperation();
         p = p->getParentOp())
      if (isa<LoopLikeOpInterface>(p))
        return false;
    for (const Buffer &bar : b.waitedBefore) {
      bool after = false, before = false;
      for (const Signal &s : signals) {
        if (s.region != a.region || !mustOverlap(s.barrier, bar))
          continue;
        if (s.position >= a.position)
          after = true;
        else if (!samePhase(s, a, bar))
          before = true;
      }
      if (after && !before)
        return true;
    }
    return false;
  };
  bool ok = true;
  // One report per pair, none for an op the dataflow already reported.
  llvm::DenseSet<Operation *> reported = known;
  for (const Access &a : accesses) {
    if (a.ordered || reported.contains(a.op))
      continue;
    for (const Access &b : accesses) {
      if (b.region == a.region || !(a.write || b.write) ||
          reported.contains(b.op) || !mustOverlap(a.buffer, b.buffer) ||
          happensBefore(a, b))
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

/// The dataflow check and the partitions' of one function; `warn`: also
/// the warnings.
static bool checkAccesses(func::FuncOp func, int numWarps, bool warn,
                          llvm::DenseMap<Location, bool> *relaxedLoads = nullptr) {
  Checker checker;
  checker.relaxedLoads = relaxedLoads;
  if (const TargetDesc *target = getEnclosingTarget(func))
    checker.copiesLandInOrder = target->asyncCopiesLandInOrder;
  checker.collectCompilerRings(func);
  checker.collectRefills(func);
  AsyncStateWalker walker(func, numWarps, &checker);
  checker.atExit(walker.run());
  if (warn)
    checker.warnIdleWaits();
  bool ok = !checker.failed;
  func.walk([&](WarpSpecializeOp ws) {
    ok &= checkUnorderedPartitions(ws, checker.reportedOps);
  });
  return ok;
}

/// An error of the check on the copy with named buffers, to re-emit.
struct Captured {
  Location loc;
  std::string message;
  SmallVector<std::pair<Location, std::string>, 2> notes;
};

/// " (it was issued 2 iterations earlier)": counted in the copy's rounds,
/// not the kernel's iterations.
static std::string withoutGeneration(std::string text) {
  size_t at = text.find(" was issued ");
  size_t open = at == std::string::npos ? at : text.rfind(" (", at);
  size_t close = open == std::string::npos ? open : text.find(')', at);
  if (close != std::string::npos)
    text.erase(open, close + 1 - open);
  return text;
}

/// The checks again on a copy of `func` in which the buffers (and
/// mbarriers) control flow chooses or permutes are named
/// (SpecializeChosenBuffers.cpp): their errors at places the first run
/// reported nothing.
static bool checkChosenBuffers(func::FuncOp func, int numWarps,
                               const llvm::DenseSet<Location> &reported) {
  bool chosen = false;
  func.walk([&](Operation *op) {
    if (isa<scf::IfOp, scf::ForOp>(op))
      chosen |= llvm::any_of(op->getResultTypes(), llvm::IsaPred<MemDescType>);
  });
  if (!chosen)
    return true;
  auto copy = cast<func::FuncOp>(func->clone());
  copy.setSymName((func.getSymName() + ".named_buffers").str());
  func->getBlock()->getOperations().insertAfter(Block::iterator(func), copy);
  SmallVector<Captured, 0> errors;
  if (nameChosenBuffers(copy)) {
    ScopedDiagnosticHandler capture(func.getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error) {
        Captured c{d.getLocation(), withoutGeneration(d.str()), {}};
        for (Diagnostic &note : d.getNotes())
          c.notes.push_back({note.getLocation(), note.str()});
        errors.push_back(std::move(c));
      }
      return success(); // nothing of the copy reaches the user as it is
    });
    checkBarrierPhases(copy);
    checkBarrierLifecycle(copy);
    llvm::DenseMap<Location, bool> relaxed;
    checkAccesses(copy, numWarps, /*warn=*/false, &relaxed);
    // The relaxed loads no copy may still be writing in the copy (where each
    // of the function's loads became one or more): said so on the function,
    // whose own walk cannot name their buffers.
    TileDialect::RelaxedLoadCheckedAttrHelper checked(func.getContext());
    func.walk([&](LocalLoadOp load) {
      auto it = relaxed.find(load->getLoc());
      if (it != relaxed.end() && !it->second)
        checked.setAttr(load, UnitAttr::get(func.getContext()));
    });
  }
  copy.erase();
  llvm::DenseSet<Location> done = reported;
  bool ok = true;
  for (Captured &c : errors) {
    if (!done.insert(c.loc).second)
      continue;
    ok = false;
    InFlightDiagnostic d = emitError(c.loc) << c.message;
    for (auto &[loc, text] : c.notes)
      d.attachNote(loc) << text;
  }
  return ok;
}

struct CheckAsyncSafety
    : kiln::tile::impl::TileCheckAsyncSafetyPassBase<CheckAsyncSafety> {
  void runOnOperation() override {
    bool ok = true;
    int numWarps = getNumWarps(getOperation());
    SmallVector<func::FuncOp> funcs;
    getOperation().walk([&](func::FuncOp func) { funcs.push_back(func); });
    for (func::FuncOp func : funcs) {
      // Where errors were reported, so that the second run on a copy with
      // named buffers adds only new ones.
      llvm::DenseSet<Location> reported;
      ScopedDiagnosticHandler record(func.getContext(), [&](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error)
          reported.insert(d.getLocation());
        return failure(); // and on to the user
      });
      ok &= checkBarrierPhases(func);
      ok &= checkBarrierLifecycle(func);
      if (func.isExternal())
        continue;
      ok &= checkAccesses(func, numWarps, /*warn=*/true);
      ok &= checkChosenBuffers(func, numWarps, reported);
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
