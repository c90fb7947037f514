//===- WarpSpecializePasses.cpp - tile.warp_specialize around lowering ----===//
//
// The first and last of the three steps of WarpSpecializeOpToLLVM.cpp, as
// passes of kiln-to-llvm rather than steps inside convert-tile-to-llvm
// (Conversion/Passes.td): tile-prepare-warp-specialize (pre-lowering stage)
// records the warps the kernel launches (tile.total_num_warps) for the
// lowering and the launcher; tile-lower-warp-specialize (lowering stage,
// after the conversion) makes one control-flow graph of the partitions.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/Passes.h"
#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/Tile/Transforms/CompileContext.h"
#include "kiln/Target/Backend.h"

namespace kiln {
#define GEN_PASS_DEF_TILEPREPAREWARPSPECIALIZEPASS
#define GEN_PASS_DEF_TILELOWERWARPSPECIALIZEPASS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

bool hasWarpSpecialize(ModuleOp module) {
  return module.walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// The module's compile context and its target's TargetInfo, or an error.
struct Lowering {
  CompileContext context;
  std::unique_ptr<TargetInfo> target;
};
FailureOr<Lowering> getLowering(ModuleOp module, StringRef target,
                                int numWarps) {
  FailureOr<CompileContext> context =
      resolveCompileContext(module, target, numWarps, /*requireTarget=*/true);
  if (failed(context))
    return failure();
  std::unique_ptr<TargetInfo> info = createTargetInfo(*context->target);
  if (!info) {
    module.emitError() << "the backend for " << context->target->name
                       << " is not built into this Kiln";
    return failure();
  }
  return Lowering{*context, std::move(info)};
}

struct PrepareWarpSpecialize
    : kiln::impl::TilePrepareWarpSpecializePassBase<PrepareWarpSpecialize> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    for (const Backend *backend : getBackends())
      backend->registerDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasWarpSpecialize(module))
      return; // nothing to prepare
    FailureOr<Lowering> l = getLowering(module, target, numWarps);
    if (failed(l))
      return signalPassFailure();
    FailureOr<int> total = prepareWarpSpecialize(
        module, *l->target, l->context.numWarps,
        int(l->context.target->warpSize));
    if (failed(total))
      return signalPassFailure();
    if (*total != l->context.numWarps)
      TileDialect::TotalNumWarpsAttrHelper(&getContext())
          .setAttr(module, IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                            *total));
  }
};

struct LowerWarpSpecialize
    : kiln::impl::TileLowerWarpSpecializePassBase<LowerWarpSpecialize> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasWarpSpecialize(module))
      return;
    FailureOr<Lowering> l = getLowering(module, target, numWarps);
    if (failed(l) ||
        failed(lowerWarpSpecialize(module, *l->target, l->context.numWarps,
                                   int(l->context.target->warpSize))))
      signalPassFailure();
  }
};

} // namespace
