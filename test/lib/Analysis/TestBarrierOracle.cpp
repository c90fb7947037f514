//===- TestBarrierOracle.cpp - Warps interleaved over barrier-completed writes //
//
// `test-barrier-oracle` judges tile-insert-barriers' decisions about writes
// that complete on a barrier (TMA loads) without sharing its analysis. It
// runs each function on every combination of control-flow choices and of a
// few values of its integer arguments (Executions.h, as the race oracle)
// into one trace of events with concrete ring slots, parities and
// predicates, then plays that trace on the kernel's
// warps, each at its own pace, under three schedules (round robin, warp 0
// first, the last warp first) and one per warp in which that warp is slow
// (it moves only when no other warp can), with a vector clock per warp and the
// hardware's barrier semantics:
//
//  * a CTA barrier (tile.barrier, the ones around a scratch op, after a
//    barrier init, before an invalidate) joins every warp's clock;
//  * a barrier counts arrivals and transaction bytes per phase: a one-thread
//    arrival (or expect) is warp 0's, a per-warp arrival every warp's, a
//    barrier-completed write issued by one thread is warp 0's and counts its
//    bytes; a phase completes when its arrivals and bytes are all in, with
//    the clocks of its contributors;
//  * a wait for parity P returns once the barrier's current phase has the
//    other parity (fresh barrier: parity 1 at once), and joins the clocks of
//    every completed phase; an elected-warp wait is warp 0's alone.
//
// A barrier-completed write is an event of its own clock component: it
// must come after every earlier access of its bytes by any warp (else
// `write-after-read` / `write-after-write` at the write), and an access of
// its bytes must come after it (else `read-before-landing` at the access).
// A warp_specialize's partitions are traced apart and played on their own
// warps (the kernel's warps the default region; every warp of the CTA meets
// before and after it; a CTA barrier inside a partition is that
// partition's; a one-thread op is its first warp's; a warpgroup's
// asynchronous read is its first warp's, whose wait retires it, and a wait
// of any warp of the warpgroup returns only once all of them have issued
// it, as a wgmma runs only when its whole warpgroup has). Named
// barriers are not modelled: they only add order, so without them the
// oracle can only see more. A scalar integer the trace cannot compute (a
// program id, a loaded length) takes one of a few values where it is
// defined, so every partition computes the same bounds from it; an
// execution with a loop of more than 16 trips is left out rather than cut
// short. Past 1,000 enumerated executions, 1,000 more are sampled at random
// (every choice varies). A schedule in which no warp can go on is a `hang`.
// Accesses of two warps of threads of one partition to the same bytes are
// not judged (thread keys decide those); across partitions a conflicting pair
// not ordered is a `partition-race`. An asynchronous read counts at its
// issue and again at the wait that retires its group (each async read op
// one group of its counter, a wait leaving at most N of the trace's newest
// groups), so that a write its warps' later arrivals hand the bytes to must
// come after that wait (a slot released before its wgmma is waited for:
// `write-after-read` at the refill).
//
// With `ctas=N` (N > 1) the function is the program of one CTA of a cluster
// of N, and the oracle plays N copies of it side by side, each traced with
// its own rank (`program_id 0` is a cluster's first CTA's plus the rank, as
// the launch places a cluster's CTAs along x; every other choice is the
// same for all CTAs). Each CTA has its own buffers and barriers; an arrival
// with CTA bits arrives on the barrier at the same offset in every CTA whose
// rank differs from its own only in those bits; a write landing in several
// CTAs (a TMA multicast) is issued by the lowest of them and lands in each,
// counting its bytes on each one's barrier; a cluster barrier's wait
// returns once every warp of every CTA made the matching arrival. A refill
// of another CTA's buffer before that CTA's reads of it are ordered before
// the refill's issue is a `write-after-read` at the copy. Two more schedules
// run one CTA at a time, the first or the last that can move, as far ahead
// of the others as it goes.
//
//===----------------------------------------------------------------------===//

#include "Executions.h"
#include "OracleInterp.h"

#include "TestPasses.h"
#include "kiln/Dialect/Tile/IR/BarrierRuns.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <optional>
#include <random>

using namespace mlir;
using namespace kiln::tile;
using kiln::Execution;
namespace oracle = kiln::oracle;

namespace {
/// Bytes in one execution: an allocation and the concrete slot of its
/// leading dimension (none: all of it). Views below a slot are the slot.
struct Bytes {
  Operation *root = nullptr;
  std::optional<int64_t> slot;
  bool overlaps(const Bytes &o) const {
    return root && root == o.root && (!slot || !o.slot || *slot == *o.slot);
  }
  std::pair<Operation *, int64_t> key() const { return {root, slot.value_or(-1)}; }
};

struct Event {
  enum Kind {
    Read,
    Write,
    CTABarrier,
    Init,
    Arrive,
    Wait,
    AsyncWrite,
    ClusterArrive,
    ClusterWait
  } kind;
  Operation *op;
  Bytes bytes; // Read / Write / AsyncWrite: what; the others: the barrier
  Bytes bar;   // AsyncWrite: where it completes
  int64_t count = 0; // Init: arrivals a phase; Arrive: arrivals
  int64_t tx = 0;    // Arrive: bytes expected; AsyncWrite: bytes delivered
  int64_t parity = 0;
  bool everyWarp = true; // false: the first warp's of its partition alone
  bool wholeCTA = false; // CTABarrier: every warp of the CTA, not the partition's
  /// Read: an asynchronous read made once for a group of this many warps (a
  /// warpgroup's wgmma), by the group's first warp; 1: by every warp.
  int groupWarps = 1;
  /// Read at the wait that retires a group's asynchronous read: the trace
  /// index of that read's issue. The read is the whole group's, so it
  /// finishes only once every warp of the group has issued it: each of
  /// them waits here until all have passed that index (-1: not a retire).
  int64_t issuedAt = -1;
  /// AsyncWrite: the CTAs it lands in (bit k: rank k); 0: its own CTA.
  int64_t landing = 0;
  /// Arrive: the rank bits its arrivals' CTAs differ in (0: its own CTA).
  unsigned ctaBits = 0;
  /// Arrive with ctaBits: made by the set's leader for every CTA of the set
  /// (its bytes expected on each barrier), not by each CTA.
  bool fromLeader = false;
};

/// One execution: the kernel's warps' events (traces[0]) and, where the
/// function has a warp_specialize, each worker partition's (traces[k]).
struct Traces {
  SmallVector<SmallVector<Event>> traces;
  SmallVector<int> warps; // per trace
  SmallVector<int> cta;   // per trace: the rank of the CTA that runs it
  bool tooLong = false;   // a loop ran past kMaxTrips: not played
};

constexpr int64_t kMaxTrips = 16;

using oracle::Witnesses;

/// Where a trace's choices come from: the exhaustive enumeration
/// (Executions.h), or past its limit a seeded random sample, in which every
/// choice varies (the enumeration varies the last ones first). The first
/// CTA's choices are kept; the others' replay them in order (so that every
/// CTA of a cluster sees the same arguments, loads and branches) as long as
/// they fit.
struct Chooser {
  Execution *ex = nullptr;
  std::mt19937_64 *rng = nullptr;
  SmallVector<unsigned> made;
  bool replay = false;
  size_t next = 0;
  unsigned choose(unsigned n) {
    if (replay && next < made.size() && made[next] < n)
      return made[next++];
    unsigned c = ex ? ex->choose(n) : unsigned((*rng)() % n);
    if (!replay)
      made.push_back(c);
    return c;
  }
  /// The next CTA's trace starts replaying the first one's choices.
  void nextCTA() {
    replay = true;
    next = 0;
  }
};

/// Phase 1: one execution's trace.
class Tracer {
public:
  /// The trace of the CTA of rank `rank` in a cluster of `ctas`, appended
  /// to `out`.
  Tracer(Traces &out, int warps, int rank = 0, int ctas = 1)
      : out(out), warps(warps), rank(rank), ctas(ctas) {
    base = current = out.traces.size();
    out.traces.emplace_back();
    out.warps.push_back(warps);
    out.cta.push_back(rank);
  }

  /// Integer arguments take each of a few values (trip counts 0-3 and 5
  /// of a unit-step loop, and lengths that give a loop over blocks of 64 or
  /// 128 one to eight trips), so that the loops' bounds and the predicates
  /// computed from them agree.
  void runFunction(func::FuncOp func, Chooser &ex) {
    static constexpr int64_t kValues[] = {0, 1, 2, 3, 5, 64, 200, 512, 1000};
    for (BlockArgument arg : func.getArguments())
      if (arg.getType().isIntOrIndex() && !arg.getType().isInteger(1))
        ints[arg] = kValues[ex.choose(std::size(kValues))];
    runBlock(func.getBody().front(), ex);
  }

private:
  void runBlock(Block &block, Chooser &ex) {
    for (Operation &op : block)
      runOp(&op, ex);
  }

  std::optional<int64_t> intOf(Value v) {
    auto it = ints.find(v);
    if (it != ints.end())
      return it->second;
    return getConstantIntValue(v);
  }

  void evalArith(Operation *op) {
    if (std::optional<int64_t> r = oracle::evalIntOp(
            op, [&](Value v) { return intOf(v); }))
      ints[op->getResult(0)] = *r;
  }

  Bytes bytesOf(Value memdesc) {
    Operation *def = memdesc.getDefiningOp();
    if (!def)
      return Bytes();
    if (isa<LocalAllocOp>(def))
      return Bytes{def, std::nullopt};
    if (auto index = dyn_cast<MemDescIndexOp>(def)) {
      Bytes b = bytesOf(index.getSrc());
      if (b.root && !b.slot)
        b.slot = intOf(index.getIndex());
      return b;
    }
    if (isa<MemDescSubsliceOp, MemDescReinterpretOp, MemDescPermuteOp,
            MemDescReshapeOp>(def))
      return bytesOf(def->getOperand(0));
    return Bytes();
  }

  /// An op with an i1 predicate runs when it holds; one Kiln cannot
  /// evaluate is a choice.
  bool runs(Value pred, Chooser &ex) {
    if (!pred)
      return true;
    if (std::optional<int64_t> v = intOf(pred))
      return *v != 0;
    return ex.choose(2) == 0;
  }

  void push(Event e) { out.traces[current].push_back(std::move(e)); }

  void runOp(Operation *op, Chooser &ex) {
    if (isa<arith::ArithDialect>(op->getDialect())) {
      evalArith(op);
      chooseUnknown(op, ex);
      return;
    }
    chooseUnknown(op, ex);
    // A warp_specialize's scratch carries its captures: its partitions are
    // what matters here.
    if (auto ws = dyn_cast<WarpSpecializeOp>(op))
      return runWarpSpecialize(ws, ex);
    if (isa<BarrierOp>(op) || getScratchBytes(op) > 0) {
      push({Event::CTABarrier, op});
      if (getScratchBytes(op) > 0)
        push({Event::CTABarrier, op});
      return;
    }
    if (auto init = dyn_cast<BarrierInitOpInterface>(op)) {
      Event e{Event::Init, op, bytesOf(init.getInitializedBarrier())};
      e.count = init.getExpectedArrivals();
      e.everyWarp = false;
      push(e);
      // The init's own (its lowering's; a run of inits shares the last's).
      if (!initSharesNextBarrier(op))
        push({Event::CTABarrier, op});
      return;
    }
    if (isa<BarrierInvalidateOpInterface>(op)) {
      // The invalidate's lowering's (a run shares the first's).
      if (!invalidateSharesPreviousBarrier(op))
        push({Event::CTABarrier, op});
      return;
    }
    if (auto cluster = dyn_cast<ClusterBarrierOpInterface>(op)) {
      push({cluster.isClusterArrival() ? Event::ClusterArrive
                                       : Event::ClusterWait,
            op});
      return;
    }
    if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(op)) {
      if (!runs(write.getCompletionPredicate(), ex))
        return;
      Event e{Event::AsyncWrite, op, bytesOf(write.getDst()),
              bytesOf(write.getCompletionBarrier())};
      e.tx = write.getCompletedBytes();
      e.everyWarp = !write.issuedByElectedThread();
      if (Value landing = write.getLandingCTAs(); landing && ctas > 1)
        e.landing = intOf(landing).value_or(0);
      push(e);
      return;
    }
    if (auto arrive = dyn_cast<BarrierArriveOpInterface>(op)) {
      if (!runs(arrive.getArrivePredicate(), ex))
        return;
      Event e{Event::Arrive, op, bytesOf(arrive.getArrivedBarrier())};
      // One CTA: every CTA of an arrival's set runs the same code, so the
      // barrier counts an arrival from each (getArrivalCount's own rule).
      // A cluster: each CTA's arrivals are played, each counting once; an
      // arrival from the set's leader only is played by the leader alone.
      int64_t count = arrive.getArrivalCount();
      if (ctas > 1) {
        e.ctaBits = arrive.getArrivalCTABits();
        if (!arrive.arrivesFromLeaderOnly())
          count >>= llvm::popcount(e.ctaBits);
        else if (rank & int(e.ctaBits))
          return; // not the leader: no arrival
        e.fromLeader = arrive.arrivesFromLeaderOnly();
      }
      e.count = count / (arrive.arrivesPerWarp() ? warps : 1);
      e.tx = arrive.getExpectedBytes();
      e.everyWarp = arrive.arrivesPerWarp();
      push(e);
      return;
    }
    if (auto wait = dyn_cast<BarrierWaitOpInterface>(op)) {
      if (!runs(wait.getWaitPredicate(), ex))
        return;
      Event e{Event::Wait, op, bytesOf(wait.getWaitedBarrier())};
      e.parity = intOf(wait.getWaitedParity()).value_or(0) & 1;
      e.everyWarp = !wait.waitsInElectedWarpOnly();
      push(e);
      return;
    }
    SmallVector<Value> reads = oracle::sharedEffectBuffers<MemoryEffects::Read>(op);
    if (auto read = dyn_cast<AsyncReadOpInterface>(op))
      for (Value v : read.getAsyncReadBuffers())
        if (!llvm::is_contained(reads, v))
          reads.push_back(v);
    int group = 1;
    if (auto read = dyn_cast<AsyncReadOpInterface>(op))
      group = std::max<int>(1, read.getAsyncReadGroupThreads() / 32);
    SmallVector<Event, 2> issued;
    for (Value v : reads) {
      Event e{Event::Read, op, bytesOf(v)};
      e.groupWarps = group;
      push(e);
      if (group > 1)
        e.issuedAt = int64_t(out.traces[current].size()) - 1;
      issued.push_back(e);
    }
    if (auto read = dyn_cast<AsyncReadOpInterface>(op);
        read && read.isAsyncReadInFlight()) {
      groups[{current, read.getAsyncReadCounter().str()}].push_back(issued);
    } else if (read && group > 1) {
      // A synchronous one waits for itself: retired at once, when the whole
      // group has issued it.
      for (const Event &e : issued)
        push(e);
    }
    // The groups a wait retires are read (at the latest) here.
    if (auto wait = dyn_cast<AsyncReadWaitOpInterface>(op)) {
      auto &pending = groups[{current, wait.getAsyncReadCounter().str()}];
      while (pending.size() > wait.getMaxPendingGroups()) {
        for (const Event &e : pending.front())
          push(e);
        pending.erase(pending.begin());
      }
    }
    for (Value v : oracle::sharedEffectBuffers<MemoryEffects::Write>(op))
      push({Event::Write, op, bytesOf(v)});
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      std::optional<int64_t> c = intOf(branch.getCondition());
      bool takeElse = c ? *c == 0 : ex.choose(2) == 1;
      Region &r = takeElse ? branch.getElseRegion() : branch.getThenRegion();
      if (!r.empty()) {
        runBlock(r.front(), ex);
        bindResults(op->getResults(), r.front().getTerminator()->getOperands());
      }
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return runFor(loop, ex);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        runBlock(block, ex);
  }

  /// Every warp of the CTA meets before and after it; the kernel's warps run
  /// the default region, each worker partition's warps their own.
  void runWarpSpecialize(WarpSpecializeOp ws, Chooser &ex) {
    Event all{Event::CTABarrier, ws};
    all.wholeCTA = true;
    push(all);
    runBlock(ws.getDefaultRegion().front(), ex);
    push(all);
    int kernelWarps = warps;
    for (auto [k, region] : llvm::enumerate(ws.getPartitionRegions())) {
      out.traces.emplace_back();
      out.warps.push_back(ws.getPartitionNumWarps()[k]);
      out.cta.push_back(rank);
      current = out.traces.size() - 1;
      warps = out.warps.back();
      push(all);
      runBlock(region.front(), ex);
      push(all);
    }
    current = base;
    warps = kernelWarps;
  }

  /// A scalar integer an op makes that the trace cannot compute (a program
  /// id, a value loaded and reduced, a cast of one) takes one of a few
  /// values at its definition, so that every use -- in every partition of a
  /// warp_specialize -- sees the same one.
  void chooseUnknown(Operation *op, Chooser &ex) {
    static constexpr int64_t kScalars[] = {0, 1, 200, 1000};
    if (op->getNumResults() != 1 || op->getNumRegions() ||
        isa<arith::ConstantOp>(op))
      return;
    Value r = op->getResult(0);
    if (!r.getType().isIntOrIndex() || intOf(r))
      return;
    // An op of no operands (a program id, the grid's size) has one value
    // for the whole trace: each partition of a warp_specialize computes its
    // own, and they must agree.
    std::optional<std::pair<const void *, const void *>> same;
    if (op->getNumOperands() == 0)
      same = {op->getName().getAsOpaquePointer(),
              op->getAttrDictionary().getAsOpaquePointer()};
    if (same) {
      auto it = sameOps.find(*same);
      if (it != sameOps.end()) {
        ints[r] = it->second;
        return;
      }
    }
    // The grid has at least one program (along x, a whole number of
    // clusters); a program id is the cluster's first CTA's plus the rank.
    static constexpr int64_t kPrograms[] = {1, 2, 3, 200};
    if (auto grid = dyn_cast<NumProgramsOp>(op)) {
      ints[r] = kPrograms[ex.choose(std::size(kPrograms))];
      if (grid.getAxis() == 0)
        ints[r] *= ctas;
    } else {
      ints[r] = r.getType().isInteger(1)
                    ? int64_t(ex.choose(2))
                    : kScalars[ex.choose(std::size(kScalars))];
    }
    if (auto pid = dyn_cast<ProgramIdOp>(op); pid && ctas > 1 && pid.getAxis() == 0)
      ints[r] = ints[r] * ctas + rank;
    if (same)
      sameOps[*same] = ints[r];
  }

  void bindResults(ValueRange to, ValueRange from) {
    SmallVector<std::optional<int64_t>> vals;
    for (Value v : from)
      vals.push_back(intOf(v));
    for (auto [t, v] : llvm::zip(to, vals)) {
      if (v)
        ints[t] = *v;
      else
        ints.erase(t);
    }
  }

  void runFor(scf::ForOp loop, Chooser &ex) {
    std::optional<int64_t> lb = intOf(loop.getLowerBound()),
                           ub = intOf(loop.getUpperBound()),
                           step = intOf(loop.getStep());
    int64_t trips;
    if (lb && ub && step && *step > 0)
      trips = *ub <= *lb ? 0 : (*ub - *lb + *step - 1) / *step;
    else if (step && *step <= 0) {
      // No kernel runs such a loop to its end: not an execution to play.
      out.tooLong = true;
      return;
    } else
      trips = ex.choose(6);
    // A longer loop is not cut short (partitions would then disagree on
    // its length): the execution is left out.
    if (trips > kMaxTrips) {
      out.tooLong = true;
      return;
    }
    int64_t first = lb.value_or(0), stride = step && *step > 0 ? *step : 1;
    bindResults(loop.getRegionIterArgs(), loop.getInitArgs());
    for (int64_t i = 0; i < trips; ++i) {
      ints[loop.getInductionVar()] = first + i * stride;
      runBlock(*loop.getBody(), ex);
      bindResults(loop.getRegionIterArgs(),
                  loop.getBody()->getTerminator()->getOperands());
    }
    bindResults(loop.getResults(), loop.getRegionIterArgs());
  }

  Traces &out;
  int warps;       // of the partition being traced
  int rank, ctas;  // this CTA's rank, the cluster's CTAs
  unsigned base = 0, current = 0; // the CTA's kernel trace, the one traced
  /// Per trace and counter, the asynchronous reads in flight, a group each
  /// (oldest first), with the read events of their buffers.
  std::map<std::pair<unsigned, std::string>, SmallVector<SmallVector<Event, 2>>>
      groups;
  DenseMap<Value, int64_t> ints;
  DenseMap<std::pair<const void *, const void *>, int64_t> sameOps;
};

using Clock = SmallVector<uint32_t, 32>;

void join(Clock &a, const Clock &b) {
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = std::max(a[i], b[i]);
}

/// Phase 2: the trace on `warps` warps under one schedule.
class Machine {
public:
  Machine(const Traces &t, Witnesses &seen, int ctas = 1)
      : ctas(ctas), seen(seen) {
    for (auto [k, n] : llvm::enumerate(t.warps)) {
      int arrivals = llvm::count_if(t.traces[k], [](const Event &e) {
        return e.kind == Event::ClusterArrive;
      });
      for (int r = 0; r < n; ++r) {
        traceOf.push_back(&t.traces[k]);
        partition.push_back(int(k));
        rank.push_back(r);
        cta.push_back(t.cta[k]);
        clusterArrivalsInTrace.push_back(arrivals);
      }
    }
    warps = int(traceOf.size());
    clusterArrived.assign(warps, 0);
    clusterWaited.assign(warps, 0);
    pc.assign(warps, 0);
    width = warps;
    for (const SmallVector<Event> &trace : t.traces)
      width += llvm::count_if(
          trace, [](const Event &e) { return e.kind == Event::AsyncWrite; });
    clocks.assign(warps, Clock(width, 0));
    for (int w = 0; w < warps; ++w)
      clocks[w][w] = 1;
  }

  /// schedule 0: round robin; 1: warp 0 first; 2: the last warp first.
  /// 3 and 4 (a cluster): one CTA at a time, the first (3) or the last
  /// (4) that can move, round robin over its warps and its CTA barriers
  /// released as soon as its warps are all there: a CTA runs as far ahead
  /// of the others as it can. With `starved` >= 0, round robin over the
  /// other warps, and that warp makes a step only when none of them can: a
  /// slow warp, which the others may lap (a barrier whose phase completes
  /// twice before the warp's wait polls it).
  void run(int schedule, int starved = -1) {
    while (true) {
      bool done = true;
      for (int w = 0; w < warps; ++w)
        done &= finished(w);
      if (done)
        return;
      if (schedule >= 3 && starved < 0) {
        if (stepOneCTA(schedule == 4))
          continue;
      }
      bool moved = false;
      for (int k = 0; k < warps; ++k) {
        int w = schedule == 2 ? warps - 1 - k : k;
        if (w == starved)
          continue;
        // Greedy schedules run a warp as far as it goes before the next.
        while (!finished(w) && step(w)) {
          moved = true;
          if (schedule == 0)
            break;
        }
      }
      if (moved)
        continue;
      if (releaseCTABarrier())
        continue;
      // The slow warp's step; reaching a CTA barrier the others wait at
      // releases it.
      if (starved >= 0 && !finished(starved) &&
          (step(starved) || releaseCTABarrier()))
        continue;
      // At the wait that never returns, when a warp is stuck at one (the
      // others may only be waiting for it at a CTA barrier).
      int stuck = -1;
      for (int w = 0; w < warps; ++w)
        if (!finished(w) && (stuck < 0 || (event(w).kind == Event::Wait &&
                                           event(stuck).kind != Event::Wait)))
          stuck = w;
      if (stuck >= 0)
        seen[event(stuck).op].insert("hang");
      return;
    }
  }

private:
  struct Phase {
    int64_t expected = 0, arrivals = 0, tx = 0, completed = 0;
    Clock pending, done;
  };
  struct Access {
    Operation *op;
    int agent; // a warp, or warps + n for the n-th barrier-completed write
    uint32_t stamp;
    bool isWrite;
    Bytes bytes;
    int cta; // whose shared memory
    bool overlaps(const Bytes &b, int c) const {
      return cta == c && bytes.overlaps(b);
    }
  };

  /// The barrier `b` of CTA `c`.
  Phase &barrier(int c, const Bytes &b) {
    auto [root, slot] = b.key();
    Phase &p = phases[{c, root, slot}];
    if (p.pending.empty()) {
      p.pending.assign(width, 0);
      p.done.assign(width, 0);
    }
    return p;
  }

  /// A phase completes when all its arrivals and bytes are in; the clocks
  /// of every completed phase stay joined in `done`.
  void complete(Phase &p) {
    if (p.expected > 0 && p.arrivals >= p.expected && p.tx == 0) {
      p.arrivals -= p.expected;
      ++p.completed;
      join(p.done, p.pending);
      std::fill(p.pending.begin(), p.pending.end(), 0);
    }
  }

  uint32_t tick(int w) { return ++clocks[w][w]; }

  bool ordered(const Access &a, int w) const {
    return a.stamp <= clocks[w][a.agent];
  }

  /// Threads' accesses: after every barrier-completed write of their bytes,
  /// and -- across warp_specialize partitions, where no thread key can make
  /// two accesses disjoint -- after a conflicting access of another
  /// partition's threads.
  void threadAccess(const Event &e, int w, bool isWrite) {
    for (const Access &a : history) {
      if (!a.overlaps(e.bytes, cta[w]) || ordered(a, w))
        continue;
      if (a.agent >= warps)
        seen[e.op].insert("read-before-landing");
      else if ((isWrite || a.isWrite) && partition[a.agent] != partition[w])
        seen[e.op].insert("partition-race");
    }
    history.push_back({e.op, w, tick(w), isWrite, e.bytes, cta[w]});
  }

  /// The CTAs an arrival of CTA `c` with rank bits `bits` reaches.
  SmallVector<int> arrivalCTAs(int c, unsigned bits) const {
    SmallVector<int> out;
    for (unsigned m = 0; m < 32; ++m)
      if ((m & ~bits) == 0 && int(c ^ m) < ctas)
        out.push_back(c ^ int(m));
    return out;
  }

  /// One event of warp `w`; false when the warp must wait.
  bool step(int w) {
    const Event &e = event(w);
    // A group's asynchronous read retires once every warp of the group has
    // issued it (a wgmma runs when its whole warpgroup has).
    if (e.kind == Event::Read && e.issuedAt >= 0)
      for (int v = 0; v < warps; ++v)
        if (partition[v] == partition[w] && cta[v] == cta[w] &&
            rank[v] / e.groupWarps == rank[w] / e.groupWarps &&
            pc[v] <= size_t(e.issuedAt) && !finished(v))
          return false;
    bool mine = e.everyWarp ? rank[w] % e.groupWarps == 0 : rank[w] == 0;
    if (!mine) {
      ++pc[w];
      return true;
    }
    switch (e.kind) {
    case Event::CTABarrier:
      atBarrier.insert(w);
      return false; // releaseCTABarrier moves every warp on
    case Event::Read:
    case Event::Write:
      threadAccess(e, w, e.kind == Event::Write);
      break;
    case Event::Init: {
      Phase &p = barrier(cta[w], e.bytes);
      p = Phase();
      p.pending.assign(width, 0);
      p.done.assign(width, 0);
      p.expected = e.count;
      break;
    }
    case Event::Arrive: {
      for (int c : arrivalCTAs(cta[w], e.ctaBits)) {
        Phase &p = barrier(c, e.bytes);
        p.arrivals += e.count;
        if (c == cta[w] || e.fromLeader)
          p.tx += e.tx;
        join(p.pending, clocks[w]);
        complete(p);
      }
      tick(w);
      break;
    }
    case Event::AsyncWrite: {
      // Landing in several CTAs: the lowest of them issues it; the others
      // run the op and receive.
      SmallVector<int> landing;
      for (int c = 0; c < ctas; ++c)
        if (e.landing >> c & 1)
          landing.push_back(c);
      if (landing.empty())
        landing.push_back(cta[w]);
      else if (landing.front() != cta[w])
        break;
      // Issued by warp w now: after every earlier access of its bytes in
      // each CTA it lands in.
      for (int c : landing)
        for (const Access &a : history)
          if (a.overlaps(e.bytes, c) && a.agent != w && !ordered(a, w))
            seen[e.op].insert(a.isWrite ? "write-after-write"
                                        : "write-after-read");
      // Its own clock component: landed for whoever acquires its phase.
      int agent = warps + asyncWrites++;
      for (int c : landing) {
        history.push_back({e.op, agent, 1, true, e.bytes, c});
        Phase &p = barrier(c, e.bar);
        join(p.pending, clocks[w]);
        p.pending[agent] = 1;
        p.tx -= e.tx;
        complete(p);
      }
      tick(w);
      break;
    }
    case Event::Wait: {
      Phase &p = barrier(cta[w], e.bytes);
      if ((p.completed & 1) == e.parity)
        return false; // the phase of this parity has not completed yet
      join(clocks[w], p.done);
      tick(w);
      break;
    }
    case Event::ClusterArrive: {
      unsigned k = clusterArrived[w]++;
      if (clusterClocks.size() <= k)
        clusterClocks.resize(k + 1, Clock(width, 0));
      join(clusterClocks[k], clocks[w]);
      tick(w);
      break;
    }
    case Event::ClusterWait: {
      // The k-th wait returns once every warp that makes a k-th arrival
      // (of every CTA) has made it.
      unsigned k = clusterWaited[w];
      for (int v = 0; v < warps; ++v)
        if (clusterArrivalsInTrace[v] > int(k) && clusterArrived[v] <= k)
          return false;
      if (k < clusterClocks.size())
        join(clocks[w], clusterClocks[k]);
      ++clusterWaited[w];
      tick(w);
      break;
    }
    }
    ++pc[w];
    return true;
  }

  bool finished(int w) const { return pc[w] == traceOf[w]->size(); }
  const Event &event(int w) const { return (*traceOf[w])[pc[w]]; }

  /// Schedules 3 and 4: a step of the first (or last) CTA that can make one.
  bool stepOneCTA(bool last) {
    for (int k = 0; k < ctas; ++k) {
      int c = last ? ctas - 1 - k : k;
      bool moved = false;
      for (int w = 0; w < warps; ++w)
        if (cta[w] == c && !finished(w) && step(w))
          moved = true;
      if (moved || releaseCTABarrier(c))
        return true;
    }
    return false;
  }

  /// A barrier every warp of its group (the CTA, or the partition) waits
  /// at: their clocks joined, all on. With `only`, a barrier of that CTA.
  bool releaseCTABarrier(int only = -1) {
    for (int w : atBarrier) {
      if (only >= 0 && cta[w] != only)
        continue;
      bool whole = event(w).wholeCTA;
      auto member = [&](int v) {
        return whole ? cta[v] == cta[w] : partition[v] == partition[w];
      };
      bool ready = true;
      for (int v = 0; v < warps; ++v)
        if (member(v))
          ready &= atBarrier.contains(v) && event(v).wholeCTA == whole;
      if (!ready)
        continue;
      Clock all(width, 0);
      for (int v = 0; v < warps; ++v)
        if (member(v))
          join(all, clocks[v]);
      SmallVector<int> group;
      for (int v = 0; v < warps; ++v)
        if (member(v))
          group.push_back(v);
      for (int v : group) {
        join(clocks[v], all);
        tick(v);
        ++pc[v];
        atBarrier.remove(v);
      }
      return true;
    }
    return false;
  }

  SmallVector<const SmallVector<Event> *> traceOf;
  SmallVector<int> partition, rank, cta;
  int warps = 0, width = 0, ctas = 1;
  // Cluster barriers: arrivals and waits made per warp, arrivals each warp's
  // trace makes in all, the joined clocks of each round's arrivals.
  SmallVector<unsigned> clusterArrived, clusterWaited;
  SmallVector<int> clusterArrivalsInTrace;
  SmallVector<Clock> clusterClocks;
  Witnesses &seen;
  SmallVector<size_t> pc;
  SmallVector<Clock> clocks;
  std::map<std::tuple<int, Operation *, int64_t>, Phase> phases;
  SmallVector<Access> history;
  llvm::SmallSetVector<int, 16> atBarrier;
  uint32_t asyncWrites = 0;
};

struct TestBarrierOraclePass
    : public PassWrapper<TestBarrierOraclePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestBarrierOraclePass)

  TestBarrierOraclePass() = default;
  TestBarrierOraclePass(const TestBarrierOraclePass &other)
      : PassWrapper(other) {}

  Option<int> ctas{*this, "ctas",
                   llvm::cl::desc("CTAs of the cluster the function is one "
                                  "CTA's program of"),
                   llvm::cl::init(1)};

  StringRef getArgument() const final { return "test-barrier-oracle"; }
  StringRef getDescription() const final {
    return "Report the ops at which some execution and schedule of the "
           "kernel's warps races with a barrier-completed write, or hangs "
           "(testing only)";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int warps = getNumWarps(module);
    module.walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      // A while loop's trips depend on values the trace does not follow
      // (a tile counter through memory): no claim either way.
      if (func.walk([](scf::WhileOp) { return WalkResult::interrupt(); })
              .wasInterrupted()) {
        func.emitRemark()
            << "barrier oracle: not judged (scf.while is not modelled)";
        return;
      }
      Witnesses seen;
      int n = std::max<int>(1, ctas);
      auto play = [&](Chooser &choices) {
        Traces traces;
        for (int c = 0; c < n; ++c) {
          if (c)
            choices.nextCTA();
          Tracer(traces, warps, c, n).runFunction(func, choices);
        }
        if (traces.tooLong)
          return;
        for (int schedule = 0; schedule < (n > 1 ? 5 : 3); ++schedule)
          Machine(traces, seen, n).run(schedule);
        // Each warp slow in turn, the others round robin.
        int total = 0;
        for (int k : traces.warps)
          total += k;
        for (int w = 0; w < total; ++w)
          Machine(traces, seen, n).run(0, w);
      };
      constexpr unsigned kExhaustive = 1000, kSampled = 1000;
      unsigned executions = kiln::forEachExecution(
          [&](Execution &ex) {
            Chooser choices{&ex, nullptr};
            play(choices);
          },
          kExhaustive);
      if (executions == kExhaustive) {
        std::mt19937_64 rng(1);
        for (unsigned i = 0; i < kSampled; ++i, ++executions) {
          Chooser choices{nullptr, &rng};
          play(choices);
        }
      }
      oracle::emitWitnesses(func, seen, "barrier oracle: witnessed",
                            "barrier oracle", executions);
    });
  }
};

} // namespace

namespace kiln {
void registerTestBarrierOraclePass() {
  PassRegistration<TestBarrierOraclePass>();
}
} // namespace kiln
