//===- TagTensorDescParams.cpp - Tensor descriptor kernel parameters ------===//
//
// tile-tag-tensor-desc-params (Conversion/Passes.td), pre-lowering stage:
// tensor descriptor parameters are passed as the target says (a 128-byte
// grid constant, say). Only kernels may take them, only on targets that
// have them; each is tagged `tile.tensordesc` for convert-tile-to-llvm,
// which hands the tagged parameters to the target.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Conversion/TileToLLVM/TargetInfo.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln {
#define GEN_PASS_DEF_TILETAGTENSORDESCPARAMSPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct TagTensorDescParams
    : kiln::impl::TileTagTensorDescParamsPassBase<TagTensorDescParams> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](func::FuncOp func) {
      any |= llvm::any_of(func.getArgumentTypes(), [](Type t) {
        return isa<TensorDescType>(t);
      });
    });
    if (!any)
      return;
    FailureOr<CompileContext> context = resolveCompileContext(
        module, target, /*numWarpsOption=*/0, /*requireTarget=*/true);
    if (failed(context))
      return signalPassFailure();
    std::unique_ptr<TargetInfo> info = createTargetInfo(*context->target);
    if (!info) {
      module.emitError() << "the backend for " << context->target->name
                         << " is not built into this Kiln";
      return signalPassFailure();
    }
    StringRef tag = TileDialect::TensordescAttrHelper::getNameStr();
    WalkResult r = module.walk([&](func::FuncOp func) {
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
        if (!isa<TensorDescType>(type))
          continue;
        if (!info->hasTensorDescriptors()) {
          func.emitError() << "argument " << i << " is a tensor descriptor, "
                           << "which " << info->getDesc().name
                           << " does not have";
          return WalkResult::interrupt();
        }
        if (func.isPrivate() || !func.getResultTypes().empty()) {
          func.emitError() << "argument " << i << ": only kernels take tensor "
                           << "descriptors (pass them to helper functions "
                              "inlined)";
          return WalkResult::interrupt();
        }
        func.setArgAttr(i, tag, UnitAttr::get(func.getContext()));
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
