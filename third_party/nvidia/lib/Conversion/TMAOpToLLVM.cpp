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

} // namespace

FailureOr<SmallVector<int64_t>>
kiln::getTMABoxOffsets(Operation *op, Value buffer, TensorDescType desc) {
  Boxes boxes = getBoxes(desc);
  auto type = cast<MemDescType>(buffer.getType());
  unsigned rank = type.getSharedLayout().getRank();
  int64_t xorOffset = getSharedXorOffset(buffer);
  ArrayRef<int64_t> view = type.getShape().take_back(rank);
  ArrayRef<int64_t> alloc = type.getAllocShape().take_back(rank);
  SmallVector<int64_t> out;
  if (xorOffset == 0 && view == alloc) {
    for (int64_t i = 0; i < boxes.count; ++i)
      out.push_back(i * boxes.chunkBytes);
    return out;
  }
  // A subslice: each box lands at the address of its first element, and the
  // hardware must then put every element where the layout has it. It
  // swizzles absolute addresses (the 16-byte unit XOR bits 7 and up), so
  // this holds only for boxes that start on a swizzle atom.
  auto layout = dyn_cast<NVMMASharedEncodingAttr>(type.getEncoding());
  FailureOr<SharedOffsets> table = SharedOffsets::get(type);
  if (!layout || rank != 2 || failed(table)) {
    op->emitOpError() << "TMA into or out of a subslice is lowered for 2-D "
                         "#tile_nv.nvmma_shared buffers only";
    return failure();
  }
  int64_t eb = type.getElementTypeBitWidth() / 8;
  unsigned swizzle = layout.getSwizzle();
  auto hardware = [&](int64_t a) {
    if (!swizzle)
      return a;
    int64_t mask = swizzle / 16 - 1;
    return a ^ (((a >> 7) & mask) << 4);
  };
  auto address = [&](int64_t r, int64_t c) {
    return (table->offsetOf({int32_t(r), int32_t(c)}) ^ xorOffset) * eb;
  };
  int64_t chunk = boxes.chunkElements, rowBytes = chunk * eb;
  for (int64_t i = 0; i < boxes.count; ++i) {
    int64_t base = address(0, i * chunk);
    for (int64_t r = 0; r < view[0]; ++r)
      for (int64_t c = 0; c < chunk; ++c) {
        if (hardware(base + r * rowBytes + c * eb) == address(r, i * chunk + c))
          continue;
        int64_t atom = swizzle ? 8 * swizzle : 128;
        op->emitOpError()
            << "TMA box " << i << " of this subslice would put element (" << r
            << ", " << i * chunk + c << ") where its layout does not: TMA "
            << "swizzles absolute shared-memory addresses, so a subslice must "
            << "start on a swizzle atom (" << atom << " bytes, "
            << atom / rowBytes << " rows of " << rowBytes
            << " bytes here) and span whole rows";
        return failure();
      }
    out.push_back(base);
  }
  return out;
}

namespace {

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
    FailureOr<SmallVector<int64_t>> offsets =
        getTMABoxOffsets(op, op.getResult(), op.getDesc().getType());
    if (failed(offsets))
      return failure();
    auto cluster = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
    for (int64_t i = 0; i < boxes.count; ++i) {
      Value dst = byteOffset(rewriter, loc, adaptor.getResult(), (*offsets)[i]);
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
    FailureOr<SmallVector<int64_t>> offsets =
        getTMABoxOffsets(op, op.getSrc(), op.getDesc().getType());
    if (failed(offsets))
      return failure();
    for (int64_t i = 0; i < boxes.count; ++i)
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, adaptor.getDesc(),
          byteOffset(rewriter, loc, adaptor.getSrc(), (*offsets)[i]),
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
