//===- TestIntRanges.cpp - Print the integer range analysis's claims ------===//
//
// `test-print-int-ranges` reports, for every integer result in the module,
// the signed range kiln::IntRanges bounds it (every element, for a tensor)
// as a remark at the op:
//
//   range = [0, 127]        or        range unknown
//
// lit pins the tile ops' rules; the soundness test
// (test/Python/test_int_range_soundness.py) parses the remarks and checks
// each bound against brute-force evaluation.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "kiln/Analysis/IntRanges.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {

struct TestIntRangesPass
    : public PassWrapper<TestIntRangesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestIntRangesPass)

  StringRef getArgument() const final { return "test-print-int-ranges"; }
  StringRef getDescription() const final {
    return "Report the signed range of every integer value as remarks "
           "(testing only)";
  }

  void runOnOperation() override {
    kiln::IntRanges ranges(getOperation());
    getOperation().walk([&](Operation *op) {
      for (Value result : op->getResults()) {
        if (!isa<IntegerType>(getElementTypeOrSelf(result.getType())))
          continue;
        std::optional<std::pair<int64_t, int64_t>> r = ranges.getSigned(result);
        if (r)
          op->emitRemark() << "range = [" << r->first << ", " << r->second
                           << "]";
        else
          op->emitRemark() << "range unknown";
      }
    });
  }
};

} // namespace

void kiln::registerTestIntRangesPass() { PassRegistration<TestIntRangesPass>(); }
