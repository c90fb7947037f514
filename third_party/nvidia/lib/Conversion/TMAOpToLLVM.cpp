//===- TMAOpToLLVM.cpp - TMA copies to NVVM -------------------------------===//
//
// A TMA copy is issued by one elected thread of warp 0 (a PTX predicate, no
// branch) for the whole CTA. A block whose rows are wider than the layout's swizzle chunk
// is copied as one box per chunk (the host encodes the descriptor's box
// that wide: kiln.nvidia.hopper.tma_box), each chunk landing after the
// previous one, as #tile_nv.nvmma_shared stores chunks. Coordinates are
// given outermost first and handed to the hardware innermost first.
//
//===----------------------------------------------------------------------===//

#include "NVIDIALowering.h"

#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

namespace {

/// One TMA box per swizzle chunk of the block's rows: the shared-memory
/// byte offset and the innermost-coordinate offset of each.
struct Boxes {
  int64_t count, chunkElements, chunkBytes;
};

Boxes getBoxes(TensorDescType desc) {
  RankedTensorType block = desc.getBlockType();
  auto layout = cast<NVMMASharedEncodingAttr>(block.getEncoding());
  int64_t inner = block.getShape().back();
  int64_t chunk = layout.getRowChunkElements(inner);
  int64_t elements = 1;
  for (int64_t d : block.getShape())
    elements *= d;
  int64_t bytes = elements * block.getElementTypeBitWidth() / 8;
  return {inner / chunk, chunk, bytes / (inner / chunk)};
}

/// Coordinates innermost first, the innermost moved by `innerOffset`.
SmallVector<Value> boxCoordinates(OpBuilder &b, Location loc, ValueRange coord,
                                  int64_t innerOffset) {
  SmallVector<Value> out(llvm::reverse(coord));
  if (innerOffset)
    out[0] = LLVM::AddOp::create(b, loc, out[0], i32Const(b, loc, innerOffset));
  return out;
}

Value byteOffset(OpBuilder &b, Location loc, Value base, int64_t bytes) {
  if (!bytes)
    return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(bytes)});
}

struct TMALoadConversion : TileOpConversion<AsyncTMACopyGlobalToLocalOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncTMACopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = isElectedThread(rewriter, op, ctx);
    if (Value p = adaptor.getPred())
      pred = LLVM::AndOp::create(rewriter, loc, pred, p);
    Boxes boxes = getBoxes(op.getDesc().getType());
    auto cluster = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
    for (int64_t i = 0; i < boxes.count; ++i) {
      Value dst = byteOffset(rewriter, loc, adaptor.getResult(),
                             i * boxes.chunkBytes);
      dst = LLVM::AddrSpaceCastOp::create(rewriter, loc, cluster, dst);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, dst, adaptor.getDesc(),
          boxCoordinates(rewriter, loc, adaptor.getCoord(),
                         i * boxes.chunkElements),
          adaptor.getBarrier(), /*im2colOffsets=*/ValueRange(),
          /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
          NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
          /*group=*/NVVM::CTAGroupKindAttr(), pred);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreConversion : TileOpConversion<AsyncTMACopyLocalToGlobalOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncTMACopyLocalToGlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = isElectedThread(rewriter, op, ctx);
    Boxes boxes = getBoxes(op.getDesc().getType());
    for (int64_t i = 0; i < boxes.count; ++i)
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, adaptor.getDesc(),
          byteOffset(rewriter, loc, adaptor.getSrc(), i * boxes.chunkBytes),
          boxCoordinates(rewriter, loc, adaptor.getCoord(),
                         i * boxes.chunkElements),
          /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE, pred);
    // Threads that issued nothing commit an empty group.
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreWaitConversion : TileOpConversion<AsyncTMAStoreWaitOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(AsyncTMAStoreWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, op.getLoc(),
                                         op.getPendingsAttr(),
                                         rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceAsyncSharedConversion : TileOpConversion<FenceAsyncSharedOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *c = rewriter.getContext();
    NVVM::FenceProxyOp::create(
        rewriter, op.getLoc(),
        NVVM::ProxyKindAttr::get(c, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(c, op.getCluster()
                                          ? NVVM::SharedSpace::shared_cluster
                                          : NVVM::SharedSpace::shared_cta));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void kiln::populateTMAOpToLLVMPatterns(TileTypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       const LoweringContext &ctx) {
  patterns.add<TMALoadConversion, TMAStoreConversion, TMAStoreWaitConversion,
               FenceAsyncSharedConversion>(converter, ctx);
}
