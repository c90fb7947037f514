//===- TestMinTrips.cpp - Print the trips branch conditions imply ---------===//
//
// `test-print-min-trips` reports, at every scf.for, what
// kiln::tile::async::impliedMinTrips claims for each combination of values
// of the conditions of the scf.ifs before it in its block (at most 4, in
// order; the first condition is the leftmost digit):
//
//   min trips 10 -> 2
//
// The soundness test (test/Python/test_min_trips_soundness.py) checks each
// claim against the loop's trips on every value of its bound that gives the
// conditions those values.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "kiln/Analysis/ForwardWalk.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {

struct TestMinTripsPass
    : public PassWrapper<TestMinTripsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestMinTripsPass)

  StringRef getArgument() const final { return "test-print-min-trips"; }
  StringRef getDescription() const final {
    return "Report the trips branch conditions before each scf.for imply, "
           "as remarks (testing only)";
  }

  void runOnOperation() override {
    getOperation().walk([&](scf::ForOp loop) {
      SmallVector<Value> conds;
      for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
        if (auto branch = dyn_cast<scf::IfOp>(op))
          conds.insert(conds.begin(), branch.getCondition());
      if (conds.size() > 4)
        conds.erase(conds.begin(), conds.end() - 4);
      for (unsigned bits = 0; bits < (1u << conds.size()); ++bits) {
        SmallVector<std::pair<Value, bool>> taken;
        std::string digits;
        for (auto [i, c] : llvm::enumerate(conds)) {
          bool v = bits >> (conds.size() - 1 - i) & 1;
          taken.push_back({c, v});
          digits += v ? '1' : '0';
        }
        loop->emitRemark() << "min trips " << digits << " -> "
                           << kiln::tile::async::impliedMinTrips(taken, loop);
      }
    });
  }
};

} // namespace

void kiln::registerTestMinTripsPass() { PassRegistration<TestMinTripsPass>(); }
