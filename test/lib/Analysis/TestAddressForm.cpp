//===- TestAddressForm.cpp - Print the address forms of pointer tensors ---===//
//
// `test-print-address-form` reports, for every pointer result with a form
// (kiln/Analysis/AddressForm.h), the form as a remark at the op:
//
//   address-form: base = arg3, elem = 4, scalar = 5 + 2*L12 + 1*arg0*L9,
//   coeff = [1; 4*arg1]
//
// Atoms are named by where they are defined: `argN` for the function's N-th
// argument, `L<line>` for the result of the op on that line. The soundness
// test evaluates each form against brute-force evaluation of the IR.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "kiln/Analysis/AddressForm.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

std::string atomName(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return "arg" + std::to_string(arg.getArgNumber());
  if (auto loc = dyn_cast<FileLineColLoc>(v.getDefiningOp()->getLoc()))
    return "L" + std::to_string(loc.getLine());
  return "L?";
}

struct TestAddressFormPass
    : public PassWrapper<TestAddressFormPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAddressFormPass)

  StringRef getArgument() const final { return "test-print-address-form"; }
  StringRef getDescription() const final {
    return "Report the address form of every pointer value that has one "
           "as remarks (testing only)";
  }

  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      for (Value result : op->getResults()) {
        if (!isa<kiln::tile::PointerType>(getElementTypeOrSelf(result.getType())))
          continue;
        std::optional<kiln::AddressForm> form = kiln::getAddressForm(result);
        if (!form)
          continue;
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "address-form: base = " << atomName(form->base)
           << ", elem = " << form->elemBytes << ", scalar = ";
        form->scalar.print(os, atomName);
        os << ", coeff = [";
        llvm::interleave(
            form->coeff, os,
            [&](const kiln::Poly &p) { p.print(os, atomName); }, "; ");
        os << "]";
        op->emitRemark() << text;
      }
    });
  }
};

} // namespace

void kiln::registerTestAddressFormPass() {
  PassRegistration<TestAddressFormPass>();
}
