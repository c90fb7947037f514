//===- TestAxisInfo.cpp - Print the axis analysis's claims ----------------===//
//
// `test-print-axis-info` reports, for every integer or pointer result in the
// module, what AxisInfoAnalysis claims about it, as a remark at the op:
//
//   contiguity = [16, 1], divisibility = [16, 4], constancy = [1, 32]
//
// lit pins individual rules with -verify-diagnostics; the soundness test
// parses the remarks and checks each claim against brute-force evaluation.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "kiln/Analysis/AxisInfo.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

struct TestAxisInfoPass
    : public PassWrapper<TestAxisInfoPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAxisInfoPass)

  StringRef getArgument() const final { return "test-print-axis-info"; }
  StringRef getDescription() const final {
    return "Report the contiguity, divisibility and constancy of every "
           "integer and pointer value as remarks (testing only)";
  }

  void runOnOperation() override {
    auto &analysis = getAnalysis<kiln::AxisInfoAnalysis>();
    getOperation().walk([&](Operation *op) {
      for (Value result : op->getResults()) {
        Type elem = getElementTypeOrSelf(result.getType());
        if (!isa<IntegerType, IndexType, kiln::tile::PointerType>(elem))
          continue;
        kiln::AxisInfo info = analysis.get(result);
        std::string text;
        llvm::raw_string_ostream os(text);
        auto list = [&](StringRef name, ArrayRef<int64_t> xs) {
          os << name << " = [";
          llvm::interleaveComma(xs, os);
          os << "]";
        };
        list("contiguity", info.contiguity);
        os << ", ";
        list("divisibility", info.divisibility);
        os << ", ";
        list("constancy", info.constancy);
        if (info.constant)
          os << ", constant = " << *info.constant;
        op->emitRemark() << text;
      }
    });
  }
};

} // namespace

void kiln::registerTestAxisInfoPass() { PassRegistration<TestAxisInfoPass>(); }
