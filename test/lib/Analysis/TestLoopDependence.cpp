//===- TestLoopDependence.cpp - Print loop hazards of loads ---------------===//
//
// `test-print-loop-hazards` reports, for every tile.load directly in the body
// of an scf.for, what kiln::findLoopHazard says of issuing it d iterations
// ahead of the loop's writes, for each d in 1..4 separately, as one remark
// at the load:
//
//   loop-hazards: 1=none 2=overlap 3=unknown 4=none
//
// (distance 0 is not asked). The soundness test evaluates the loop on
// concrete values and checks that no "none" is contradicted: the load of
// iteration i + d never reads an element a write of iteration i writes.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "kiln/Analysis/LoopDependence.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

struct TestLoopDependencePass
    : public PassWrapper<TestLoopDependencePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestLoopDependencePass)

  StringRef getArgument() const final { return "test-print-loop-hazards"; }
  StringRef getDescription() const final {
    return "Report, for each load in a loop body, whether issuing it 1-4 "
           "iterations ahead may read the loop's writes (testing only)";
  }

  void runOnOperation() override {
    getOperation().walk([&](kiln::tile::LoadOp load) {
      auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
      if (!loop)
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "loop-hazards:";
      for (int64_t d = 1; d <= 4; ++d) {
        std::optional<kiln::LoopHazard> h = kiln::findLoopHazard(
            loop, load.getPtr(), {d}, [](Operation *) { return false; });
        os << " " << d << "="
           << (!h ? "none"
                  : h->kind == kiln::LoopHazard::Overlap ? "overlap"
                                                         : "unknown");
      }
      load.emitRemark() << text;
    });
  }
};

} // namespace

void kiln::registerTestLoopDependencePass() {
  PassRegistration<TestLoopDependencePass>();
}
