//===- ClusterOpToLLVM.cpp - cluster barriers and the mbarrier-init fence ===//
//
// tile_nv.cluster_arrive / cluster_wait become barrier.cluster.arrive
// [.relaxed].aligned / barrier.cluster.wait.aligned (every thread of a warp
// executes them together, as the DSL's uniform code does), and
// tile_nv.fence_mbarrier_init_cluster becomes
// fence.mbarrier_init.release.cluster.
//
//===----------------------------------------------------------------------===//

#include "NVIDIALowering.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile_nv;

namespace {

struct ClusterArriveConversion : TileOpConversion<ClusterArriveOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterArriveOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    UnitAttr aligned = rewriter.getUnitAttr();
    if (op.getRelaxed())
      NVVM::ClusterArriveRelaxedOp::create(rewriter, op.getLoc(), aligned);
    else
      NVVM::ClusterArriveOp::create(rewriter, op.getLoc(), aligned);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ClusterWaitConversion : TileOpConversion<ClusterWaitOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::ClusterWaitOp::create(rewriter, op.getLoc(), rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceMBarrierInitClusterConversion
    : TileOpConversion<FenceMBarrierInitClusterOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(FenceMBarrierInitClusterOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::FenceMbarrierInitOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::populateClusterOpToLLVMPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           const LoweringContext &ctx) {
  patterns.add<ClusterArriveConversion, ClusterWaitConversion,
               FenceMBarrierInitClusterConversion>(converter, ctx);
}
