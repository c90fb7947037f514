//===- TestWaitCountOracle.cpp - Brute-force check of wait counts ---------===//
//
// `test-wait-count-oracle` judges the counts on `tile.async_wait` without
// sharing any arithmetic with tile-insert-wait-counts: it runs each function
// on every combination of control-flow choices (each `scf.if` both ways,
// each `scf.for` whose trip count is not a constant 0 to 3 times, `scf.while`
// not at all), numbering commit groups as they are closed, and at every
// wait compares the count with the groups committed after each awaited
// token's group in that execution. A count larger than that in any
// execution lets a needed copy stay in flight: an error. Otherwise a remark
// gives the smallest margin over all executions (`slack`: 0 means the count
// is as large as it can be).
//
//===----------------------------------------------------------------------===//

#include "Executions.h"

#include "TestPasses.h"
#include "kiln/Analysis/AxisInfo.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include <limits>
#include <memory>

using namespace mlir;
using namespace kiln::tile;
using kiln::Execution;

namespace {

/// A token's meaning in one execution: the group it names (a copy's group is
/// filled in by the commit that closes it), or retired.
struct TokenState {
  int64_t group = -1; // -1: a copy not committed yet
  bool retired = false;
};
using Token = std::shared_ptr<TokenState>;

struct WaitRecord {
  int64_t minAfter = std::numeric_limits<int64_t>::max();
  // Instruction counts: the fewest copy instructions issued after the
  // newest awaited group, minus the wait's `instructions`.
  int64_t minInstrAfter = std::numeric_limits<int64_t>::max();
  bool violated = false, uncommitted = false, reached = false,
       instrViolated = false;
};


class Interpreter {
public:
  Interpreter(DenseMap<Operation *, WaitRecord> &records,
              const kiln::TargetDesc *target)
      : records(records), target(target) {}

  void runBlock(Block &block, Execution &ex) {
    for (Operation &op : block)
      runOp(&op, ex);
  }

private:
  Token get(Value v) {
    auto it = tokens.find(v);
    return it == tokens.end() ? nullptr : it->second;
  }

  void runOp(Operation *op, Execution &ex) {
    if (auto mem = dyn_cast<CountedMemoryOpInterface>(op)) {
      if (target && target->asyncWaitCountsInstructions)
        instructions += mem.getMinIssuedInstructions();
      return;
    }
    if (auto copy = dyn_cast<AsyncCopyOpInterface>(op)) {
      if (target && target->asyncWaitCountsInstructions)
        instructions += getAsyncCopyInstructions(copy, target);
      auto t = std::make_shared<TokenState>();
      pendingCopies.push_back(t);
      tokens[op->getResult(0)] = t;
      return;
    }
    if (isa<AsyncCommitGroupOp>(op)) {
      ++groups;
      instructionsAtCommit.push_back(instructions);
      for (Token &t : pendingCopies)
        t->group = groups;
      pendingCopies.clear();
      auto t = std::make_shared<TokenState>();
      t->group = groups;
      tokens[op->getResult(0)] = t;
      return;
    }
    if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
      WaitRecord &rec = records[op];
      rec.reached = true;
      std::optional<uint32_t> num = wait.getNum();
      int64_t n = num ? int64_t(*num) : 0;
      int64_t after = std::numeric_limits<int64_t>::max();
      for (Value v : wait.getTokens()) {
        Token t = get(v);
        if (!t)
          continue; // not produced in this function: nothing to check
        if (t->retired)
          continue;
        if (t->group < 0) {
          rec.uncommitted = true;
          continue;
        }
        after = std::min(after, groups - t->group);
      }
      if (after != std::numeric_limits<int64_t>::max()) {
        if (after < n)
          rec.violated = true;
        rec.minAfter = std::min(rec.minAfter, after - n);
      }
      // Instructions: every group older than the newest n must be done, so
      // the newest awaited group's copies must not be among the last
      // `instructions` issued.
      if (std::optional<uint32_t> m = wait.getInstructions()) {
        int64_t newest = groups - n; // 1-based id of the newest awaited group
        if (newest >= 1) {
          int64_t issuedAfter = instructions - instructionsAtCommit[newest - 1];
          if (issuedAfter < int64_t(*m))
            rec.instrViolated = true;
          rec.minInstrAfter = std::min(rec.minInstrAfter, issuedAfter - *m);
        }
      }
      // Everything committed more than n groups ago has retired.
      for (auto &[value, t] : tokens)
        if (t->group >= 0 && groups - t->group >= n)
          t->retired = true;
      auto done = std::make_shared<TokenState>();
      done->retired = true;
      tokens[op->getResult(0)] = done;
      return;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      bool takeElse = ex.choose(2) == 1;
      Region &r = takeElse ? branch.getElseRegion() : branch.getThenRegion();
      if (r.empty())
        return;
      runBlock(r.front(), ex);
      bind(op->getResults(), r.front().getTerminator()->getOperands());
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      int64_t trips;
      auto lb = getConstantIntValue(loop.getLowerBound());
      auto ub = getConstantIntValue(loop.getUpperBound());
      auto step = getConstantIntValue(loop.getStep());
      if (lb && ub && step && *step > 0)
        trips = *ub <= *lb ? 0 : std::min<int64_t>(8, (*ub - *lb + *step - 1) / *step);
      else
        trips = ex.choose(4);
      SmallVector<Value> carried(loop.getInitArgs());
      SmallVector<Token> values;
      for (Value v : carried)
        values.push_back(get(v));
      for (int64_t i = 0; i < trips; ++i) {
        for (auto [arg, t] : llvm::zip(loop.getRegionIterArgs(), values))
          if (t)
            tokens[arg] = t;
        runBlock(*loop.getBody(), ex);
        values.clear();
        for (Value v : loop.getBody()->getTerminator()->getOperands())
          values.push_back(get(v));
      }
      for (auto [res, t] : llvm::zip(loop.getResults(), values))
        if (t)
          tokens[res] = t;
      return;
    }
    if (isa<scf::WhileOp>(op))
      return; // not interpreted: its waits are not reached
    for (Region &region : op->getRegions())
      for (Block &block : region)
        runBlock(block, ex);
  }

  void bind(ResultRange results, OperandRange yielded) {
    for (auto [res, v] : llvm::zip(results, yielded))
      if (Token t = get(v))
        tokens[res] = t;
  }

  DenseMap<Operation *, WaitRecord> &records;
  const kiln::TargetDesc *target;
  int64_t instructions = 0;
  SmallVector<int64_t> instructionsAtCommit; // per group, 1-based ids
  DenseMap<Value, Token> tokens;
  SmallVector<Token> pendingCopies;
  int64_t groups = 0;
};

struct TestWaitCountOraclePass
    : public PassWrapper<TestWaitCountOraclePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestWaitCountOraclePass)

  StringRef getArgument() const final { return "test-wait-count-oracle"; }
  StringRef getDescription() const final {
    return "Check every async_wait count against all executions (testing "
           "only)";
  }

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      DenseMap<Operation *, WaitRecord> records;
      unsigned executions = kiln::forEachExecution([&](Execution &ex) {
        Interpreter(records, getEnclosingTarget(func))
            .runBlock(func.getBody().front(), ex);
      });
      func.walk([&](AsyncWaitOp wait) {
        auto it = records.find(wait);
        if (it == records.end() || !it->second.reached) {
          wait.emitRemark() << "oracle: not reached";
          return;
        }
        WaitRecord &r = it->second;
        if (r.uncommitted)
          wait.emitError() << "oracle: waits for a copy not yet committed";
        else if (r.violated)
          wait.emitError() << "oracle: count " << wait.getNum().value_or(0)
                           << " leaves an awaited group in flight";
        else if (r.instrViolated)
          wait.emitError() << "oracle: instruction count "
                           << wait.getInstructions().value_or(0)
                           << " leaves an awaited copy instruction in flight";
        else {
          constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
          bool groups = r.minAfter != kNone;
          bool instr = wait.getInstructions() && r.minInstrAfter != kNone;
          if (!groups && !instr) {
            wait.emitRemark() << "oracle: nothing to wait for (" << executions
                              << " executions)";
            return;
          }
          InFlightDiagnostic d = wait.emitRemark();
          d << "oracle: holds on " << executions << " executions";
          if (groups)
            d << ", slack " << r.minAfter;
          if (instr)
            d << ", instruction slack " << r.minInstrAfter;
        }
      });
    });
  }
};

} // namespace

namespace kiln {
void registerTestWaitCountOraclePass() {
  PassRegistration<TestWaitCountOraclePass>();
}
} // namespace kiln
