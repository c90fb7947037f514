//===- ClusterOpToLLVM.cpp - cluster barriers and the mbarrier-init fence ===//
//
// tile_nv.cluster_arrive / cluster_wait become barrier.cluster.arrive
// [.relaxed].aligned / barrier.cluster.wait.aligned (every thread of a warp
// executes them together, as the DSL's uniform code does), and
// tile_nv.fence_mbarrier_init_cluster becomes
// fence.mbarrier_init.release.cluster. tile_nv.cluster_gather and
// cluster_scatter address each element in this CTA's part as local_gather
// does, move the address to the target CTA's part with mapa and load or
// store there (ld / st.shared::cluster).
//
//===----------------------------------------------------------------------===//

#include "NVIDIALowering.h"

#include "kiln/Conversion/TileToLLVM/SharedIndex.h"

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

namespace {

/// The address in the CTA of rank `(rank & ~keep) | (own & keep)` of the
/// element at `local` in this CTA's part (`own`: this CTA's rank & keep).
Value remoteAddress(OpBuilder &b, Location loc, Value local, Value rank,
                    int32_t keep, Value own) {
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  Value target = rank;
  if (keep)
    target = LLVM::OrOp::create(
        b, loc, LLVM::AndOp::create(b, loc, rank, i32Const(b, loc, ~keep)), own);
  return NVVM::MapaOp::create(b, loc, clusterPtr, local, target);
}

/// This CTA's rank bits `keep` (null when there are none).
Value ownBits(OpBuilder &b, Location loc, int32_t keep) {
  if (!keep)
    return Value();
  return LLVM::AndOp::create(b, loc,
                             NVVM::ClusterId::create(b, loc, b.getI32Type()),
                             i32Const(b, loc, keep));
}

struct ClusterGatherConversion : TileOpConversion<ClusterGatherOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> ranks = unpackStruct(rewriter, loc, adaptor.getRanks());
    int32_t keep = op.getKeep();
    Value own = ownBits(rewriter, loc, keep);
    FailureOr<Value> result = lowerIndexedGather(
        rewriter, op, adaptor.getSrc(), op.getSrc(), adaptor.getIndices(),
        cast<RankedTensorType>(op.getIndices().getType()), op.getType(),
        op.getAxis(), *getTypeConverter(), ctx, [&](unsigned r, Value p) {
          return remoteAddress(rewriter, loc, p, ranks[r], keep, own);
        });
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

struct ClusterScatterConversion : TileOpConversion<ClusterScatterOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> ranks = unpackStruct(rewriter, loc, adaptor.getRanks());
    int32_t keep = op.getKeep();
    Value own = ownBits(rewriter, loc, keep);
    if (failed(lowerIndexedScatter(
            rewriter, op, adaptor.getDst(), op.getDst(), adaptor.getValues(),
            cast<RankedTensorType>(op.getValues().getType()),
            adaptor.getIndices(), op.getAxis(), *getTypeConverter(), ctx,
            [&](unsigned r, Value p) {
              return remoteAddress(rewriter, loc, p, ranks[r], keep, own);
            })))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::populateClusterOpToLLVMPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           const LoweringContext &ctx) {
  patterns.add<ClusterArriveConversion, ClusterWaitConversion,
               FenceMBarrierInitClusterConversion, ClusterGatherConversion,
               ClusterScatterConversion>(
      converter, ctx);
}
