//===- ClusterOpToLLVM.cpp - cluster barriers and the mbarrier-init fence ===//
//
// tile_nv.cluster_arrive / cluster_wait become barrier.cluster.arrive
// [.relaxed].aligned / barrier.cluster.wait.aligned (every thread of a warp
// executes them together, as the DSL's uniform code does), and
// tile_nv.fence_mbarrier_init_cluster becomes
// fence.mbarrier_init.release.cluster. tile_nv.cluster_gather addresses
// each element in this CTA's part as local_gather does, moves the address
// to the target CTA's part with mapa and loads it (ld.shared::cluster).
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

struct ClusterGatherConversion : TileOpConversion<ClusterGatherOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(ClusterGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type regTy = getTypeConverter()->convertType(type.getElementType());
    Type structTy = getTypeConverter()->convertType(type);
    if (!regTy || !structTy)
      return failure();
    Type memTy = getMemoryType(regTy);
    SmallVector<Value> indices =
        unpackStruct(rewriter, loc, adaptor.getIndices());
    SmallVector<Value> ranks = unpackStruct(rewriter, loc, adaptor.getRanks());
    FailureOr<SmallVector<Value>> addrs = indexedAddresses(
        rewriter, loc, op, adaptor.getSrc(), op.getSrc(),
        cast<RankedTensorType>(op.getIndices().getType()), indices,
        op.getAxis(), memTy, ctx);
    if (failed(addrs))
      return failure();
    Type i32 = rewriter.getI32Type();
    auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
    int32_t keep = op.getKeep();
    Value own;
    if (keep)
      own = LLVM::AndOp::create(rewriter, loc,
                                NVVM::ClusterId::create(rewriter, loc, i32),
                                i32Const(rewriter, loc, keep));
    SmallVector<Value> regs;
    for (auto [p, r] : llvm::zip(*addrs, ranks)) {
      Value target = r;
      if (keep)
        target = LLVM::OrOp::create(
            rewriter, loc,
            LLVM::AndOp::create(rewriter, loc, r, i32Const(rewriter, loc, ~keep)),
            own);
      Value remote = NVVM::MapaOp::create(rewriter, loc, clusterPtr, p, target);
      regs.push_back(fromMemory(
          rewriter, loc, LLVM::LoadOp::create(rewriter, loc, memTy, remote),
          regTy));
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, regs));
    return success();
  }
};

} // namespace

void kiln::populateClusterOpToLLVMPatterns(TileTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           const LoweringContext &ctx) {
  patterns.add<ClusterArriveConversion, ClusterWaitConversion,
               FenceMBarrierInitClusterConversion, ClusterGatherConversion>(
      converter, ctx);
}
