//===- SharedMemoryOpToLLVM.cpp - local_alloc / local_load / local_store --===//
//
// A shared buffer becomes the address (addrspace 3) of its first element:
// the module's shared array plus the offset tile-allocate-shared-memory gave
// its local_alloc. Each thread reads or writes the elements its register
// layout holds, at the offset the buffer's shared layout gives them. That
// offset is F2-linear in the coordinates, and coordinates are register
// constants XOR a per-thread part, so each access is one XOR of a compile-time
// constant with a per-thread offset computed once.
//
// Until tile-insert-barriers exists, a store is bracketed by CTA barriers: the
// one before orders it after earlier reads of the buffer by other threads
// (WAR), the one after orders later reads after it (RAW).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Conversion/TileToLLVM/TargetInfo.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// For the shared layout `shared` (a bijection offset -> coordinates), the
/// offset of each coordinate bit: inverse[d][k] is the offset holding
/// coordinate 2^k along dimension d (all others 0). Gaussian elimination
/// over F2 on the offset bases.
FailureOr<SmallVector<SmallVector<int64_t>>>
invertShared(const LinearLayout &shared) {
  ArrayRef<int32_t> sizes = shared.getOutSizes();
  SmallVector<unsigned> first; // first coordinate bit of each dimension
  unsigned bits = 0;
  for (int32_t s : sizes) {
    first.push_back(bits);
    bits += llvm::Log2_32(s);
  }
  ArrayRef<LinearLayout::Basis> bases = shared.getBases(LinearLayout::Register);
  if (bases.size() != bits || bits > 62)
    return failure();
  // rows[i]: (coordinate bits of basis i, offset bits combining to it)
  SmallVector<std::pair<uint64_t, uint64_t>> rows;
  for (auto [i, b] : llvm::enumerate(bases)) {
    uint64_t mask = 0;
    for (auto [d, c] : llvm::enumerate(b))
      for (unsigned k = 0; (int64_t(1) << k) < sizes[d]; ++k)
        if (c & (1 << k))
          mask |= uint64_t(1) << (first[d] + k);
    rows.push_back({mask, uint64_t(1) << i});
  }
  for (unsigned col = 0; col < bits; ++col) {
    auto pivot = llvm::find_if(llvm::drop_begin(rows, col), [&](auto &r) {
      return r.first & (uint64_t(1) << col);
    });
    if (pivot == rows.end())
      return failure(); // not a bijection
    std::swap(rows[col], *pivot);
    for (unsigned r = 0; r < bits; ++r)
      if (r != col && (rows[r].first & (uint64_t(1) << col))) {
        rows[r].first ^= rows[col].first;
        rows[r].second ^= rows[col].second;
      }
  }
  SmallVector<SmallVector<int64_t>> inverse(sizes.size());
  for (auto [d, s] : llvm::enumerate(sizes))
    for (unsigned k = 0; (int64_t(1) << k) < s; ++k)
      inverse[d].push_back(int64_t(rows[first[d] + k].second));
  return inverse;
}

/// Offset of coordinates `coords` (compile-time) under `inverse`.
int64_t offsetOf(ArrayRef<SmallVector<int64_t>> inverse,
                 ArrayRef<int32_t> coords) {
  int64_t offset = 0;
  for (auto [d, c] : llvm::enumerate(coords))
    for (auto [k, o] : llvm::enumerate(inverse[d]))
      if (c & (1 << k))
        offset ^= o;
  return offset;
}

/// Element addresses (addrspace 3) of every register of a tensor of
/// `tensorType` in the buffer at `base` of `memdesc`.
FailureOr<SmallVector<Value>>
emitElementAddresses(OpBuilder &b, Location loc, Value base,
                     RankedTensorType tensorType, MemDescType memdesc,
                     Type memTy, const LoweringContext &ctx) {
  FailureOr<LinearLayout> regs = getLinearLayout(tensorType);
  FailureOr<LinearLayout> shared = getSharedLinearLayout(memdesc);
  if (failed(regs) || failed(shared))
    return failure();
  // Leading (ring) dimensions of the buffer are a whole number of tiles; a
  // tensor as large as the memdesc covers them with the layout's rank only
  // when they are 1.
  unsigned layoutRank = shared->getRank();
  unsigned rank = memdesc.getShape().size();
  for (int64_t d : memdesc.getShape().drop_back(layoutRank))
    if (d != 1)
      return failure();
  FailureOr<SmallVector<SmallVector<int64_t>>> inverse = invertShared(*shared);
  if (failed(inverse))
    return failure();
  auto tail = [&](ArrayRef<int32_t> c) { return c.drop_front(rank - layoutRank); };

  // The per-thread part: coordinates of register 0, inverted at runtime.
  ThreadIds ids = getThreadIds(b, loc, ctx);
  Value threadOffset = i32Const(b, loc, 0);
  auto addPart = [&](LinearLayout::InDim dim, Value index) {
    for (unsigned bit = 0; bit < regs->getNumBits(dim); ++bit) {
      LinearLayout::Basis c = regs->applyOne(dim, 1 << bit);
      int64_t o = offsetOf(*inverse, tail(c));
      if (o == 0)
        continue;
      Value set = LLVM::AndOp::create(
          b, loc, LLVM::LShrOp::create(b, loc, index, i32Const(b, loc, bit)),
          i32Const(b, loc, 1));
      threadOffset = LLVM::XOrOp::create(
          b, loc, threadOffset,
          LLVM::MulOp::create(b, loc, set, i32Const(b, loc, o)));
    }
  };
  addPart(LinearLayout::Lane, ids.lane);
  addPart(LinearLayout::Warp, ids.warp);

  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  SmallVector<Value> out;
  for (int32_t r = 0; r < regs->getInSize(LinearLayout::Register); ++r) {
    int64_t o = offsetOf(*inverse, tail(regs->applyOne(LinearLayout::Register, r)));
    Value offset = o ? LLVM::XOrOp::create(b, loc, threadOffset, i32Const(b, loc, o))
                     : threadOffset;
    out.push_back(
        LLVM::GEPOp::create(b, loc, ptrTy, memTy, base, ValueRange{offset}));
  }
  return out;
}

LogicalResult storeTensor(ConversionPatternRewriter &rewriter, Location loc,
                          Operation *op, Value base, Value convertedValue,
                          RankedTensorType tensorType, MemDescType memdesc,
                          const TypeConverter &converter,
                          const LoweringContext &ctx) {
  Type regTy = converter.convertType(tensorType.getElementType());
  if (!regTy)
    return failure();
  Type memTy = getMemoryType(regTy);
  FailureOr<SmallVector<Value>> addrs = emitElementAddresses(
      rewriter, loc, base, tensorType, memdesc, memTy, ctx);
  if (failed(addrs))
    return op->emitOpError() << "cannot address " << memdesc << " with "
                             << tensorType;
  SmallVector<Value> regs = getRegisters(rewriter, loc, convertedValue);
  ctx.target.barrier(rewriter, loc); // earlier readers are done (WAR)
  for (auto [v, p] : llvm::zip(regs, *addrs))
    LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, v), p);
  ctx.target.barrier(rewriter, loc); // later readers see it (RAW)
  return success();
}

struct LocalAllocOpConversion : ConvertOpToLLVMPattern<LocalAllocOp> {
  LocalAllocOpConversion(TileTypeConverter &converter,
                         const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(converter), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = getScratchBase(rewriter, loc, op);
    if (Value src = op.getSrc())
      if (failed(storeTensor(rewriter, loc, op, base, adaptor.getSrc(),
                             cast<RankedTensorType>(src.getType()),
                             op.getType(), *getTypeConverter(), ctx)))
        return failure();
    rewriter.replaceOp(op, base);
    return success();
  }

  const LoweringContext &ctx;
};

struct LocalStoreOpConversion : ConvertOpToLLVMPattern<LocalStoreOp> {
  LocalStoreOpConversion(TileTypeConverter &converter,
                         const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(converter), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(storeTensor(rewriter, op.getLoc(), op, adaptor.getDst(),
                           adaptor.getValue(),
                           cast<RankedTensorType>(op.getValue().getType()),
                           op.getDst().getType(), *getTypeConverter(), ctx)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }

  const LoweringContext &ctx;
};

struct LocalLoadOpConversion : ConvertOpToLLVMPattern<LocalLoadOp> {
  LocalLoadOpConversion(TileTypeConverter &converter,
                        const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(converter), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type regTy = getTypeConverter()->convertType(type.getElementType());
    Type structTy = getTypeConverter()->convertType(type);
    if (!regTy || !structTy)
      return failure();
    Type memTy = getMemoryType(regTy);
    FailureOr<SmallVector<Value>> addrs =
        emitElementAddresses(rewriter, loc, adaptor.getSrc(), type,
                             op.getSrc().getType(), memTy, ctx);
    if (failed(addrs))
      return op.emitOpError() << "cannot address " << op.getSrc().getType()
                              << " with " << type;
    SmallVector<Value> regs;
    for (Value p : *addrs)
      regs.push_back(fromMemory(rewriter, loc,
                                LLVM::LoadOp::create(rewriter, loc, memTy, p),
                                regTy));
    rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, regs));
    return success();
  }

  const LoweringContext &ctx;
};

struct MemDescIndexOpConversion : ConvertOpToLLVMPattern<MemDescIndexOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MemDescIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Slot i starts i whole slots (every dimension but the leading one)
    // after the ring.
    MemDescType slot = op.getType();
    int64_t bytes = getElementBytes(slot.getElementType());
    for (int64_t d : slot.getShape())
      bytes *= d;
    Location loc = op.getLoc();
    Value offset = LLVM::MulOp::create(rewriter, loc, adaptor.getIndex(),
                                       i32Const(rewriter, loc, bytes));
    auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    rewriter.replaceOp(op, LLVM::GEPOp::create(rewriter, loc, ptrTy,
                                               rewriter.getI8Type(),
                                               adaptor.getSrc(),
                                               ValueRange{offset}));
    return success();
  }
};

struct BarrierOpConversion : ConvertOpToLLVMPattern<BarrierOp> {
  BarrierOpConversion(TileTypeConverter &converter, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(converter), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ctx.target.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }

  const LoweringContext &ctx;
};

struct LocalDeallocOpConversion : ConvertOpToLLVMPattern<LocalDeallocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(LocalDeallocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op); // the allocator already placed the buffer
    return success();
  }
};

} // namespace

void kiln::populateSharedMemoryOpToLLVMPatterns(
    TileTypeConverter &converter, RewritePatternSet &patterns,
    const LoweringContext &ctx) {
  patterns.add<LocalAllocOpConversion, LocalStoreOpConversion,
               LocalLoadOpConversion, BarrierOpConversion>(converter, ctx);
  patterns.add<LocalDeallocOpConversion, MemDescIndexOpConversion>(converter);
}
