//===- TestLinearLayout.cpp - Print C++'s linear layouts ------------------===//
//
// `test-print-linear-layout` reports, for every tensor result, the F2-linear
// form C++ gives its layout, and for convert_layout / reshape how the data
// moves (identity, permute, shared) and the source layout in the result's
// output space:
//
//   layout = {register = [[1]], lane = [...], warp = [...]}; move = permute;
//   source = {...}
//
// test/Python/test_layout_differential.py compares them with the Python
// DSL's own layout math over random layouts.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "kiln/Analysis/AxisInfo.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct TestLinearLayoutPass
    : public PassWrapper<TestLinearLayoutPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestLinearLayoutPass)

  StringRef getArgument() const final { return "test-print-linear-layout"; }
  StringRef getDescription() const final {
    return "Report the linear form of every tensor layout and how layout "
           "moves are classified, as remarks (testing only)";
  }

  void runOnOperation() override {
    // Shared buffers passed in: the offset -> coordinates map of their layout.
    getOperation().walk([&](FunctionOpInterface fn) {
      for (BlockArgument arg : fn.getArguments())
        if (auto memdesc = dyn_cast<MemDescType>(arg.getType())) {
          FailureOr<LinearLayout> ll = getSharedLinearLayout(memdesc);
          if (failed(ll))
            continue;
          std::string text;
          llvm::raw_string_ostream os(text);
          os << "shared layout of argument " << arg.getArgNumber() << " = "
             << *ll;
          emitRemark(arg.getLoc()) << text;
        }
    });
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() != 1)
        return;
      auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!type || !type.getEncoding())
        return;
      FailureOr<LinearLayout> ll = getLinearLayout(type);
      if (failed(ll))
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "layout = " << *ll;
      if (isa<ConvertLayoutOp, ReshapeOp>(op)) {
        auto layouts = getMoveLayouts(op);
        if (succeeded(layouts)) {
          static const char *names[] = {"identity", "permute", "shared"};
          os << "; move = "
             << names[static_cast<int>(
                    classifyLayoutMove(layouts->first, layouts->second))]
             << "; source = " << layouts->first;
        }
      }
      op->emitRemark() << text;
    });
  }
};

} // namespace

void kiln::registerTestLinearLayoutPass() {
  PassRegistration<TestLinearLayoutPass>();
}
