//===- TestAsyncRaceOracle.cpp - Brute-force races of async shared memory ===//
//
// `test-async-race-oracle` judges tile-check-async-safety without sharing
// its analysis: it runs each function on every combination of control-flow
// choices (each `scf.if` both ways, each `scf.for` whose trip count is not a
// constant 0 to 5 times, the partitions of a warp_specialize in every
// rotation of their order), with loop induction variables and the integer
// arithmetic on them evaluated concretely, so a ring index is a number, and
// a shared buffer an if chose or a loop carried is the one it was on that
// execution.
// Along each execution it keeps what is in flight -- async copies in commit
// groups of their partition, barrier-completed writes until a wait on their
// barrier, asynchronous reads in groups of their counter, the CTA's stores
// not yet fenced for the async proxy -- and at every access compares the
// bytes (allocation and concrete slot) with them. Each op at which some
// execution shows a race gets a remark naming the kind:
//
//   copy-race  reads or writes bytes an async copy or TMA write may still be
//              writing;
//   read-race  writes bytes an asynchronous read (wgmma, TMA store) may
//              still be reading;
//   unfenced   an asynchronous read of bytes stored without a fence since;
//   exit       the function ends with this asynchronous read in flight.
//
// The check's errors must all be witnessed here (test_async_race_oracle.py
// compares the two on a corpus and on random kernels). Copies are unordered
// here on every target: where a target's copies land in issue order
// (TargetDesc::asyncCopiesLandInOrder) the check leaves out a copy over an
// earlier copy of the same kind still in flight, which this oracle still
// witnesses.
//
//===----------------------------------------------------------------------===//

#include "Executions.h"
#include "OracleInterp.h"

#include "TestPasses.h"
#include "kiln/Analysis/AxisInfo.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

using namespace mlir;
using namespace kiln::tile;
using kiln::Execution;
namespace oracle = kiln::oracle;

namespace {

/// Bytes of shared memory in one execution: an allocation, and the concrete
/// slot of its leading dimension (none: all of it). `partial` views (a
/// subslice) are never said to overlap anything: the oracle only witnesses
/// certain overlaps.
struct Bytes {
  Operation *root = nullptr;
  std::optional<int64_t> slot;
  bool partial = false;
  bool unknownSlot = false;

  bool overlaps(const Bytes &o) const {
    if (!root || root != o.root || partial || o.partial)
      return false;
    if (!slot || !o.slot)
      return !(unknownSlot || o.unknownSlot);
    return *slot == *o.slot;
  }
};

struct Copy {
  Operation *op;
  int partition;
  int64_t group; // -1: not committed yet
  Bytes dst;
};

struct BarrierWrite {
  Operation *op;
  Bytes dst, barrier;
};

struct AsyncRead {
  Operation *op;
  int partition;
  StringRef counter;
  int64_t group;
  SmallVector<Bytes> bytes;
};

struct Store {
  Operation *op;
  Bytes bytes;
};

using oracle::Witnesses;

class Interpreter {
public:
  explicit Interpreter(Witnesses &seen) : seen(seen) {}

  void runFunction(func::FuncOp func, Execution &ex) {
    runBlock(func.getBody().front(), ex);
    for (const AsyncRead &r : reads)
      seen[r.op].insert("exit");
  }

private:
  void runBlock(Block &block, Execution &ex) {
    for (Operation &op : block)
      runOp(&op, ex);
  }

  std::optional<int64_t> intOf(Value v) {
    auto it = ints.find(v);
    if (it != ints.end())
      return it->second;
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return c;
    return std::nullopt;
  }

  void evalArith(Operation *op) {
    if (std::optional<int64_t> r = oracle::evalIntOp(
            op, [&](Value v) { return intOf(v); }))
      ints[op->getResult(0)] = *r;
  }

  /// The bytes `memdesc` names in this execution: its allocation through
  /// the views, and through the buffers control flow chose or carried here
  /// (`chosen`, bound when the if or loop ran).
  Bytes bytesOf(Value memdesc) {
    auto it = chosen.find(memdesc);
    if (it != chosen.end())
      return it->second;
    Operation *def = memdesc.getDefiningOp();
    if (!def)
      return Bytes(); // a function argument: not followed
    if (isa<LocalAllocOp>(def)) {
      Bytes b;
      b.root = def;
      return b;
    }
    if (auto index = dyn_cast<MemDescIndexOp>(def)) {
      Bytes b = bytesOf(index.getSrc());
      // The outermost index picks the slot of the allocation's ring.
      if (b.root && !b.slot && !b.unknownSlot && !b.partial) {
        b.slot = intOf(index.getIndex());
        b.unknownSlot = !b.slot;
      } else {
        b.partial = true;
      }
      return b;
    }
    if (isa<MemDescSubsliceOp, MemDescReinterpretOp>(def)) {
      Bytes b = bytesOf(def->getOperand(0));
      b.partial = true;
      return b;
    }
    if (isa<MemDescPermuteOp, MemDescReshapeOp>(def))
      return bytesOf(def->getOperand(0));
    return Bytes();
  }

  /// Binds `to` (if results, loop arguments or results) to what `from`
  /// holds now: integers and shared buffers.
  void bind(ValueRange to, ArrayRef<std::optional<int64_t>> ints_,
            ArrayRef<std::optional<Bytes>> bufs) {
    for (auto [v, c, b] : llvm::zip(to, ints_, bufs)) {
      if (c)
        ints[v] = *c;
      else
        ints.erase(v);
      if (b)
        chosen[v] = *b;
      else
        chosen.erase(v);
    }
  }
  void snapshot(ValueRange from, SmallVectorImpl<std::optional<int64_t>> &ints_,
                SmallVectorImpl<std::optional<Bytes>> &bufs) {
    ints_.clear();
    bufs.clear();
    for (Value v : from) {
      ints_.push_back(intOf(v));
      bufs.push_back(isa<MemDescType>(v.getType()) ? std::optional<Bytes>(bytesOf(v))
                                                  : std::nullopt);
    }
  }

  void access(Operation *op, const Bytes &b, bool isWrite, bool viaAsyncProxy) {
    for (const Copy &c : copies)
      if (c.dst.overlaps(b))
        seen[op].insert("copy-race");
    for (const BarrierWrite &w : barrierWrites)
      if (w.dst.overlaps(b))
        seen[op].insert("copy-race");
    if (isWrite)
      for (const AsyncRead &r : reads)
        for (const Bytes &x : r.bytes)
          if (x.overlaps(b))
            seen[op].insert("read-race");
    if (viaAsyncProxy)
      for (const Store &s : unfenced)
        if (s.bytes.overlaps(b))
          seen[op].insert("unfenced");
  }

  void runOp(Operation *op, Execution &ex) {
    if (isa<arith::ArithDialect>(op->getDialect()))
      return evalArith(op);
    bool asyncRead = isa<AsyncReadOpInterface>(op);
    bool asyncWrite = isa<AsyncCopyOpInterface, BarrierCompletedWriteOpInterface>(op);
    // Accesses at issue: every buffer read or written, asynchronous ones
    // included (an async copy must not start over bytes in flight either).
    SmallVector<Value> readVals = oracle::sharedEffectBuffers<MemoryEffects::Read>(op);
    if (auto r = dyn_cast<AsyncReadOpInterface>(op))
      for (Value v : r.getAsyncReadBuffers())
        if (!llvm::is_contained(readVals, v))
          readVals.push_back(v);
    SmallVector<Value> writeVals = oracle::sharedEffectBuffers<MemoryEffects::Write>(op);
    if (auto w = dyn_cast<BarrierCompletedWriteOpInterface>(op))
      if (!llvm::is_contained(writeVals, w.getDst()))
        writeVals.push_back(w.getDst());
    // A buffer initialized from registers writes its own result.
    if (auto alloc = dyn_cast<LocalAllocOp>(op); alloc && alloc.getSrc())
      writeVals.push_back(alloc.getResult());
    for (Value v : readVals)
      access(op, bytesOf(v), false, asyncRead);
    for (Value v : writeVals)
      access(op, bytesOf(v), true, false);

    if (auto copy = dyn_cast<AsyncCopyOpInterface>(op)) {
      copies.push_back({op, partition, -1, bytesOf(copy.getDst())});
    } else if (auto arrive = dyn_cast<AsyncCopyArriveOpInterface>(op)) {
      Bytes bar = bytesOf(arrive.getCopiesBarrier());
      llvm::erase_if(copies, [&](const Copy &c) {
        if (c.partition != partition)
          return false;
        barrierWrites.push_back({c.op, c.dst, bar});
        return true;
      });
    } else if (auto write = dyn_cast<BarrierCompletedWriteOpInterface>(op)) {
      barrierWrites.push_back(
          {op, bytesOf(write.getDst()), bytesOf(write.getCompletionBarrier())});
    } else if (isa<AsyncCommitGroupOp>(op)) {
      int64_t g = ++groups[partition];
      for (Copy &c : copies)
        if (c.partition == partition && c.group < 0)
          c.group = g;
    } else if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
      // Copies of this partition in groups older than the newest `num`
      // land: their bytes are the CTA's writes from here on.
      int64_t n = wait.getNum().value_or(0);
      int64_t g = groups[partition];
      llvm::erase_if(copies, [&](const Copy &c) {
        bool done = c.partition == partition && c.group >= 0 && g - c.group >= n;
        if (done)
          unfenced.push_back({c.op, c.dst});
        return done;
      });
    } else if (auto wait = dyn_cast<BarrierWaitOpInterface>(op)) {
      Bytes bar = bytesOf(wait.getWaitedBarrier());
      llvm::erase_if(barrierWrites, [&](const BarrierWrite &w) {
        return w.barrier.root == bar.root &&
               (!w.barrier.slot || !bar.slot || *w.barrier.slot == *bar.slot);
      });
    } else if (auto read = dyn_cast<AsyncReadOpInterface>(op)) {
      StringRef counter = read.getAsyncReadCounter();
      auto key = std::make_pair(partition, counter);
      if (read.isAsyncReadInFlight()) {
        AsyncRead r{op, partition, counter, ++readGroups[key]};
        for (Value v : read.getAsyncReadBuffers())
          r.bytes.push_back(bytesOf(v));
        reads.push_back(std::move(r));
      } else {
        llvm::erase_if(reads, [&](const AsyncRead &r) {
          return r.partition == partition && r.counter == counter;
        });
      }
    } else if (auto wait = dyn_cast<AsyncReadWaitOpInterface>(op)) {
      StringRef counter = wait.getAsyncReadCounter();
      int64_t g = readGroups[std::make_pair(partition, counter)];
      int64_t n = wait.getMaxPendingGroups();
      llvm::erase_if(reads, [&](const AsyncRead &r) {
        return r.partition == partition && r.counter == counter &&
               g - r.group >= n;
      });
    } else if (isa<AsyncProxyFenceOpInterface>(op)) {
      unfenced.clear();
    }
    if (!asyncWrite) // the CTA's own stores: generic proxy
      for (Value v : writeVals)
        unfenced.push_back({op, bytesOf(v)});

    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      bool takeElse = ex.choose(2) == 1;
      Region &r = takeElse ? branch.getElseRegion() : branch.getThenRegion();
      if (r.empty())
        return;
      runBlock(r.front(), ex);
      SmallVector<std::optional<int64_t>> c;
      SmallVector<std::optional<Bytes>> b;
      snapshot(r.front().getTerminator()->getOperands(), c, b);
      bind(op->getResults(), c, b);
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return runFor(loop, ex);
    if (auto ws = dyn_cast<WarpSpecializeOp>(op)) {
      unsigned n = ws->getNumRegions();
      unsigned first = ex.choose(n);
      int saved = partition;
      for (unsigned k = 0; k < n; ++k) {
        unsigned r = (first + k) % n;
        partition = int(r);
        runBlock(ws->getRegion(r).front(), ex);
      }
      partition = saved;
      return;
    }
    if (isa<scf::WhileOp>(op))
      return; // not interpreted
    for (Region &region : op->getRegions())
      for (Block &block : region)
        runBlock(block, ex);
  }

  void runFor(scf::ForOp loop, Execution &ex) {
    std::optional<int64_t> lb = intOf(loop.getLowerBound()),
                           ub = intOf(loop.getUpperBound()),
                           step = intOf(loop.getStep());
    int64_t trips;
    if (lb && ub && step && *step > 0)
      trips = *ub <= *lb ? 0 : std::min<int64_t>(8, (*ub - *lb + *step - 1) / *step);
    else
      trips = ex.choose(6); // 0-5: enough for the 4 back edges the check follows
    int64_t first = lb.value_or(0), stride = step && *step > 0 ? *step : 1;
    SmallVector<std::optional<int64_t>> carried;
    SmallVector<std::optional<Bytes>> buffers;
    snapshot(loop.getInitArgs(), carried, buffers);
    for (int64_t i = 0; i < trips; ++i) {
      ints[loop.getInductionVar()] = first + i * stride;
      bind(loop.getRegionIterArgs(), carried, buffers);
      runBlock(*loop.getBody(), ex);
      snapshot(loop.getBody()->getTerminator()->getOperands(), carried, buffers);
    }
    bind(loop.getResults(), carried, buffers);
  }

  Witnesses &seen;
  DenseMap<Value, int64_t> ints;
  DenseMap<Value, Bytes> chosen;
  SmallVector<Copy> copies;
  SmallVector<BarrierWrite> barrierWrites;
  SmallVector<AsyncRead> reads;
  SmallVector<Store> unfenced;
  DenseMap<int, int64_t> groups;
  std::map<std::pair<int, StringRef>, int64_t> readGroups;
  int partition = 0;
};

struct TestAsyncRaceOraclePass
    : public PassWrapper<TestAsyncRaceOraclePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAsyncRaceOraclePass)

  StringRef getArgument() const final { return "test-async-race-oracle"; }
  StringRef getDescription() const final {
    return "Report the ops at which some execution races on async shared "
           "memory (testing only)";
  }

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      Witnesses seen;
      unsigned executions = kiln::forEachExecution(
          [&](Execution &ex) { Interpreter(seen).runFunction(func, ex); });
      oracle::emitWitnesses(func, seen, "oracle: race witnessed", "oracle",
                            executions);
    });
  }
};

} // namespace

namespace kiln {
void registerTestAsyncRaceOraclePass() {
  PassRegistration<TestAsyncRaceOraclePass>();
}
} // namespace kiln
