//===- WarpPipelineToLLVM.cpp - warp-pipeline stage borders ----------------===//
//
// tile_amd.warp_pipeline_border becomes a scheduling barrier that lets
// nothing cross it (s_sched_barrier 0: the stage's instructions stay
// between its borders) and, with a priority, s_setprio.
//
//===----------------------------------------------------------------------===//

#include "../TargetInfo/AMDLowering.h"

#include "kiln/Dialect/TileAMD/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile_amd;

namespace {

struct WarpPipelineBorderConversion : TileOpConversion<WarpPipelineBorderOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(WarpPipelineBorderOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ROCDL::SchedBarrier::create(rewriter, op.getLoc(), 0);
    // The attribute is a signless i32: -1 (leave the priority) reads back as
    // its bits.
    auto priority = static_cast<int32_t>(op.getPriority());
    if (priority >= 0)
      ROCDL::SetPrioOp::create(rewriter, op.getLoc(),
                               static_cast<int16_t>(priority));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::populateWarpPipelineToLLVMPatterns(TileTypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              const LoweringContext &ctx) {
  patterns.add<WarpPipelineBorderConversion>(converter, ctx);
}
