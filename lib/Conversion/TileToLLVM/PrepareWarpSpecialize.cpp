//===- PrepareWarpSpecialize.cpp - tile.warp_specialize before lowering ---===//
//
// tile-prepare-warp-specialize (Conversion/Passes.td): the first of the
// three steps of WarpSpecializeOpToLLVM.cpp, as a pass of the pre-lowering
// stage rather than a step inside convert-tile-to-llvm. It records the warps
// the kernel launches (tile.total_num_warps) for the lowering and the
// launcher.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"

namespace kiln {
#define GEN_PASS_DEF_TILEPREPAREWARPSPECIALIZEPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct PrepareWarpSpecialize
    : kiln::impl::TilePrepareWarpSpecializePassBase<PrepareWarpSpecialize> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module.walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      return; // nothing to prepare
    FailureOr<CompileContext> context =
        resolveCompileContext(module, target, numWarps, /*requireTarget=*/true);
    if (failed(context))
      return signalPassFailure();
    const TargetDesc &desc = *context->target;
    std::unique_ptr<TargetInfo> targetInfo = createTargetInfo(desc);
    if (!targetInfo) {
      module.emitError() << "the backend for " << desc.name
                         << " is not built into this Kiln";
      return signalPassFailure();
    }
    FailureOr<int> total = prepareWarpSpecialize(
        module, *targetInfo, context->numWarps, int(desc.warpSize));
    if (failed(total))
      return signalPassFailure();
    if (*total != context->numWarps)
      TileDialect::TotalNumWarpsAttrHelper(&getContext())
          .setAttr(module, IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                            *total));
  }
};

} // namespace
