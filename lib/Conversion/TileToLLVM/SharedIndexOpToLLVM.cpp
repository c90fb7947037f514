//===- SharedIndexOpToLLVM.cpp - local_gather / scatter / atomic_rmw ------===//
//
// Each register of the indices' layout addresses the buffer at its own
// coordinates with the one along `axis` replaced by its index. A buffer
// offset is F2-linear in the coordinates (SharedOffsets), so it is the XOR
// of three parts: the register's constant offset and the thread's lane and
// warp part, both with the axis coordinate taken as zero (as local_load's
// addresses, SharedMemoryOpToLLVM.cpp), and the image of the runtime index
// -- a shift where the axis's bits map to consecutive offset bits, else a
// select per bit. Padded layouts add their padding after the XOR, as
// local_load does. Atomics act once per element (lowerAtomic).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/SharedIndex.h"
#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Conversion/TileToLLVM/TargetInfo.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

FailureOr<SmallVector<Value>>
kiln::indexedAddresses(OpBuilder &b, Location loc, Operation *op, Value base,
                       Value view, RankedTensorType type,
                       ArrayRef<Value> indices, unsigned axis, Type memTy,
                       const LoweringContext &ctx) {
  SmallVector<SmallVector<Value>> lists{SmallVector<Value>(indices)};
  return indexedAddresses(b, loc, op, base, view, type, ArrayRef<unsigned>(axis),
                          ArrayRef<SmallVector<Value>>(lists), memTy, ctx);
}

/// The image in buffer offsets of a runtime coordinate `v` along an axis
/// whose bits map to `axisBits`: a shift where they are consecutive, else a
/// select per bit.
static Value coordinateImage(OpBuilder &b, Location loc, Value v,
                             ArrayRef<int64_t> axisBits) {
  Type i32 = b.getI32Type();
  unsigned width = v.getType().getIntOrFloatBitWidth();
  if (width > 32)
    v = LLVM::TruncOp::create(b, loc, i32, v);
  else if (width < 32)
    v = LLVM::ZExtOp::create(b, loc, i32, v);
  if (axisBits.empty())
    return i32Const(b, loc, 0);
  bool shifted = llvm::isPowerOf2_64(axisBits[0]);
  for (auto [k, o] : llvm::enumerate(axisBits))
    shifted &= o == (axisBits[0] << k);
  if (shifted) {
    Value image = LLVM::AndOp::create(
        b, loc, v, i32Const(b, loc, (int64_t(1) << axisBits.size()) - 1));
    if (unsigned s = llvm::Log2_64(axisBits[0]))
      image = LLVM::ShlOp::create(b, loc, image, i32Const(b, loc, s));
    return image;
  }
  Value image = i32Const(b, loc, 0);
  for (auto [k, o] : llvm::enumerate(axisBits)) {
    // (0 - bit) is all ones where the bit is set.
    Value bit = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, v, i32Const(b, loc, k)),
        i32Const(b, loc, 1));
    Value all = LLVM::SubOp::create(b, loc, i32Const(b, loc, 0), bit);
    image = LLVM::XOrOp::create(
        b, loc, image, LLVM::AndOp::create(b, loc, all, i32Const(b, loc, o)));
  }
  return image;
}

FailureOr<SmallVector<Value>>
kiln::indexedAddresses(OpBuilder &b, Location loc, Operation *op, Value base,
                       Value view, RankedTensorType type,
                       ArrayRef<unsigned> axes,
                       ArrayRef<SmallVector<Value>> indices, Type memTy,
                       const LoweringContext &ctx) {
  auto memdesc = cast<MemDescType>(view.getType());
  FailureOr<LinearLayout> regs = getLinearLayout(type);
  FailureOr<SharedOffsets> inverse = SharedOffsets::get(memdesc);
  if (failed(regs) || failed(inverse)) {
    op->emitOpError() << "cannot address " << memdesc << " with " << type;
    return failure();
  }
  auto offsetOf = [&](LinearLayout::InDim dim, int32_t index) {
    LinearLayout::Basis c = regs->applyOne(dim, index);
    for (unsigned axis : axes)
      c[axis] = 0;
    // Off the axes the indices may be smaller than the buffer, never larger
    // (the verifier), so their coordinates are the buffer's.
    return inverse->offsetOf(c);
  };
  SmallVector<int64_t> laneBits, warpBits;
  for (unsigned k = 0; k < regs->getNumBits(LinearLayout::Lane); ++k)
    laneBits.push_back(offsetOf(LinearLayout::Lane, 1 << k));
  for (unsigned k = 0; k < regs->getNumBits(LinearLayout::Warp); ++k)
    warpBits.push_back(offsetOf(LinearLayout::Warp, 1 << k));
  ThreadIds ids = getThreadIds(b, loc, ctx);
  Value thread = i32Const(b, loc, getSharedXorOffset(view));
  thread = xorSetBits(b, loc, thread, ids.lane, laneBits);
  thread = xorSetBits(b, loc, thread, ids.warp, warpBits);

  auto paddings = memdesc.getSharedLayout().getPaddingSteps();
  SmallVector<Value> addrs;
  for (unsigned r = 0; r < indices.front().size(); ++r) {
    Value image;
    for (auto [axis, list] : llvm::zip(axes, indices)) {
      Value one = coordinateImage(b, loc, list[r], inverse->bitOffsets(axis));
      image = image ? LLVM::XOrOp::create(b, loc, image, one) : one;
    }
    Value perThread = LLVM::XOrOp::create(b, loc, thread, image);
    addrs.push_back(sharedElementAddress(b, loc, base, memTy, perThread,
                                         /*threadBits=*/-1,
                                         offsetOf(LinearLayout::Register, r),
                                         paddings));
  }
  return addrs;
}

namespace {

/// What scatter and the atomics start from: the values' register and memory
/// types, their registers and each register's address in the buffer.
struct IndexedWrite {
  Type regTy, memTy;
  SmallVector<Value> values, addrs;
};

template <typename Op>
FailureOr<IndexedWrite> prepareIndexedWrite(Op op, typename Op::Adaptor adaptor,
                                            ConversionPatternRewriter &rewriter,
                                            const TypeConverter &converter,
                                            const LoweringContext &ctx) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getValues().getType());
  IndexedWrite w;
  w.regTy = converter.convertType(type.getElementType());
  if (!w.regTy)
    return failure();
  w.memTy = getMemoryType(w.regTy);
  w.values = unpackStruct(rewriter, loc, adaptor.getValues());
  SmallVector<Value> indices = unpackStruct(rewriter, loc, adaptor.getIndices());
  FailureOr<SmallVector<Value>> addrs =
      indexedAddresses(rewriter, loc, op, adaptor.getDst(), op.getDst(), type,
                       indices, op.getAxis(), w.memTy, ctx);
  if (failed(addrs))
    return failure();
  w.addrs = std::move(*addrs);
  return w;
}

} // namespace

FailureOr<SmallVector<Value>>
kiln::indexedAddresses(OpBuilder &b, Location loc, Operation *op, Value base,
                       Value view, RankedTensorType type,
                       ArrayRef<unsigned> axes, ValueRange indexStructs,
                       Type memTy, const LoweringContext &ctx) {
  SmallVector<SmallVector<Value>> indices;
  for (Value v : indexStructs)
    indices.push_back(unpackStruct(b, loc, v));
  return indexedAddresses(b, loc, op, base, view, type, axes, indices, memTy,
                          ctx);
}

FailureOr<Value> kiln::lowerIndexedGather(
    ConversionPatternRewriter &rewriter, Operation *op, Value base, Value view,
    ValueRange indexStructs, ArrayRef<unsigned> axes,
    RankedTensorType indicesType, RankedTensorType resultType,
    const TypeConverter &converter, const LoweringContext &ctx,
    function_ref<Value(unsigned, Value)> remap) {
  Location loc = op->getLoc();
  Type regTy = converter.convertType(resultType.getElementType());
  Type structTy = converter.convertType(resultType);
  if (!regTy || !structTy)
    return failure();
  Type memTy = getMemoryType(regTy);
  FailureOr<SmallVector<Value>> addrs =
      indexedAddresses(rewriter, loc, op, base, view, indicesType, axes,
                       indexStructs, memTy, ctx);
  if (failed(addrs))
    return failure();
  SmallVector<Value> regs;
  for (auto [r, p] : llvm::enumerate(*addrs)) {
    Value at = remap ? remap(r, p) : p;
    regs.push_back(fromMemory(
        rewriter, loc, LLVM::LoadOp::create(rewriter, loc, memTy, at), regTy));
  }
  return packStruct(rewriter, loc, structTy, regs);
}

LogicalResult kiln::lowerIndexedScatter(
    ConversionPatternRewriter &rewriter, Operation *op, Value base, Value view,
    Value valuesStruct, RankedTensorType valuesType, ValueRange indexStructs,
    ArrayRef<unsigned> axes, const TypeConverter &converter,
    const LoweringContext &ctx, function_ref<Value(unsigned, Value)> remap) {
  Location loc = op->getLoc();
  Type regTy = converter.convertType(valuesType.getElementType());
  if (!regTy)
    return failure();
  Type memTy = getMemoryType(regTy);
  SmallVector<Value> values = unpackStruct(rewriter, loc, valuesStruct);
  FailureOr<SmallVector<Value>> addrs =
      indexedAddresses(rewriter, loc, op, base, view, valuesType, axes,
                       indexStructs, memTy, ctx);
  if (failed(addrs))
    return failure();
  // Threads holding the same element write the same value: no test.
  for (auto [r, p] : llvm::enumerate(*addrs))
    LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, values[r]),
                          remap ? remap(r, p) : p);
  return success();
}

namespace {

struct LocalGatherOpConversion : TileOpConversion<LocalGatherOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(LocalGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> result = lowerIndexedGather(
        rewriter, op, adaptor.getSrc(), op.getSrc(), adaptor.getIndices(),
        {op.getAxis()}, cast<RankedTensorType>(op.getIndices().getType()),
        op.getType(), *getTypeConverter(), ctx);
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

struct LocalScatterOpConversion : TileOpConversion<LocalScatterOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(LocalScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(lowerIndexedScatter(
            rewriter, op, adaptor.getDst(), op.getDst(), adaptor.getValues(),
            cast<RankedTensorType>(op.getValues().getType()),
            adaptor.getIndices(), {op.getAxis()}, *getTypeConverter(), ctx)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalAtomicRMWOpConversion : TileOpConversion<LocalAtomicRMWOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(LocalAtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getValues().getType());
    FailureOr<IndexedWrite> w = prepareIndexedWrite(
        op, adaptor, rewriter, *getTypeConverter(), ctx);
    if (failed(w))
      return failure();
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    LLVM::AtomicBinOp kind = getAtomicBinOp(op.getKind());
    unsigned align = getElementBytes(type.getElementType());
    std::string scope = ctx.target.atomicSyncScope("cta");
    return lowerAtomic(
        op, type, op.getResult(), masks, w->regTy, rewriter, ctx,
        [&](unsigned r) -> Value {
          return LLVM::AtomicRMWOp::create(
              rewriter, loc, kind, w->addrs[r], w->values[r],
              LLVM::AtomicOrdering::monotonic, scope, align);
        },
        getTypeConverter()->convertType(op.getType()));
  }
};

} // namespace

void kiln::populateSharedIndexOpToLLVMPatterns(TileTypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               const LoweringContext &ctx) {
  patterns.add<LocalGatherOpConversion, LocalScatterOpConversion,
               LocalAtomicRMWOpConversion>(converter, ctx);
}
