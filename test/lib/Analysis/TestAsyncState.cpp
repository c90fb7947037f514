//===- TestAsyncState.cpp - Print what async work is in flight -----------===//
//
// `test-print-async-state` reports, at each op that touches shared memory or
// asynchronous work (and at each return), what kiln's AsyncState analysis
// holds in flight just before it, as a remark:
//
//   in flight: groups <= 1; copy +0 by tile.async_copy_global_to_local#0 of alloc0[(iv + 1) % 3]
//
// Allocations are named allocN and the ops that issued work opname#N, in
// the order of the function. An op in a loop or a partition shows the state
// of the walk's last visit (the settled one). Only the analysis's own
// answers are printed: the brute-force oracles judge the passes that use it.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "kiln/Analysis/AsyncState.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace kiln::tile;
using namespace kiln::tile::async;

namespace {

/// Whether the walk's state before `op` is worth a remark.
bool isAsyncEvent(Operation *op) {
  return isa<func::ReturnOp, AsyncCommitGroupOp, AsyncWaitOp, BarrierOp,
             AsyncCopyOpInterface, AsyncReadOpInterface,
             AsyncReadWaitOpInterface, BarrierCompletedWriteOpInterface,
             BarrierWaitOpInterface, BarrierArriveOpInterface,
             AsyncProxyFenceOpInterface>(op) ||
         !writtenBuffers(op).empty() || !readBuffers(op).empty();
}

/// Keeps the state of the last visit of each op, printed.
class Recorder : public AsyncStateClient {
public:
  explicit Recorder(func::FuncOp func) {
    llvm::DenseMap<OperationName, unsigned> perName;
    unsigned allocs = 0;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<LocalAllocOp>(op))
        names[op] = "alloc" + std::to_string(allocs++);
      else
        names[op] = op->getName().getStringRef().str() + "#" +
                    std::to_string(perName[op->getName()]++);
    });
  }

  void visit(Operation *op, const AsyncState &before) override {
    if (!isAsyncEvent(op))
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    before.print(os, [&](raw_ostream &out, Operation *o) {
      out << names.lookup(o);
    });
    last[op] = std::move(text);
  }

  llvm::MapVector<Operation *, std::string> last;

private:
  llvm::DenseMap<Operation *, std::string> names;
};

struct TestAsyncStatePass
    : public PassWrapper<TestAsyncStatePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAsyncStatePass)

  StringRef getArgument() const final { return "test-print-async-state"; }
  StringRef getDescription() const final {
    return "Report what asynchronous work AsyncState holds in flight before "
           "each async or shared-memory op, as remarks (testing only)";
  }

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (func.isExternal())
        return;
      Recorder recorder(func);
      // Each scf.if's branches joined where it ends: one state per op.
      AsyncStateWalker(func, getNumWarps(getOperation()), &recorder,
                       /*correlate=*/false)
          .run();
      // In program order, whatever order the walk last reached them in.
      func.walk([&](Operation *op) {
        auto it = recorder.last.find(op);
        if (it != recorder.last.end())
          op->emitRemark() << "in flight: " << it->second;
      });
    });
  }
};

} // namespace

void kiln::registerTestAsyncStatePass() {
  PassRegistration<TestAsyncStatePass>();
}
