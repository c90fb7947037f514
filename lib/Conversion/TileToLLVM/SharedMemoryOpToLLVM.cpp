//===- SharedMemoryOpToLLVM.cpp - local_alloc / local_load / local_store --===//
//
// A shared buffer becomes the address (addrspace 3) of its first element:
// the module's shared array plus the offset tile-allocate-shared-memory gave
// its local_alloc. Each thread reads or writes the elements its register
// layout holds, at the offset the buffer's shared layout gives them. That
// offset is F2-linear in the coordinates, and coordinates are register
// constants XOR a per-thread part, so each access is one XOR of a compile-time
// constant with a per-thread offset computed once. Registers that are
// consecutive elements in the buffer are accessed as one vector (up to 16
// bytes, within the buffer's alignment).
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

/// How a thread accesses a buffer: one address per group of `vec`
/// consecutive registers, which are consecutive elements in shared memory.
struct SharedAccess {
  SmallVector<Value> addrs;
  unsigned vec = 1;
};

/// Alignment in bytes of the first element of a buffer: 16 for a local_alloc
/// (the allocator's), less for a ring slot whose size is not a multiple.
unsigned baseAlignment(Value memdesc) {
  if (auto index = memdesc.getDefiningOp<MemDescIndexOp>()) {
    MemDescType slot = index.getType();
    uint64_t bytes = getElementBytes(slot.getElementType());
    for (int64_t d : slot.getShape())
      bytes *= d;
    return std::min<uint64_t>(baseAlignment(index.getSrc()),
                              bytes & -bytes); // largest power of two dividing it
  }
  return 16;
}

/// Addresses (addrspace 3) for every register of a tensor of `tensorType` in
/// the buffer at `base` of `memdesc` (aligned to `alignment` bytes), grouped
/// into vectors as wide as both layouts allow (at most 16 bytes).
FailureOr<SharedAccess>
emitElementAddresses(OpBuilder &b, Location loc, Value base,
                     RankedTensorType tensorType, MemDescType memdesc,
                     Type memTy, unsigned alignment, bool vectorize,
                     const LoweringContext &ctx) {
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

  // Registers r .. r+vec-1 are elements offset .. offset+vec-1 when register
  // bit j moves the offset by exactly 2^j for j < log2(vec), and no other bit
  // (register, lane, warp) touches the offset's low log2(vec) bits: then the
  // XOR with the group's first offset is an addition.
  SharedAccess access;
  unsigned elemBytes = getElementBytes(memdesc.getElementType());
  unsigned maxVec = vectorize ? std::min(16u, alignment) / elemBytes : 1;
  auto bitOffset = [&](LinearLayout::InDim dim, unsigned bit) {
    return offsetOf(*inverse, tail(regs->applyOne(dim, 1 << bit)));
  };
  for (unsigned v = 2; v <= maxVec; v *= 2) {
    unsigned bits = llvm::Log2_32(v);
    if (regs->getNumBits(LinearLayout::Register) < bits ||
        bitOffset(LinearLayout::Register, bits - 1) != (1 << (bits - 1)))
      break;
    bool clear = true;
    for (auto dim : {LinearLayout::Register, LinearLayout::Lane,
                     LinearLayout::Warp})
      for (unsigned k = 0; k < regs->getNumBits(dim); ++k)
        if (!(dim == LinearLayout::Register && k < bits) &&
            (bitOffset(dim, k) & (v - 1)))
          clear = false;
    if (!clear)
      break;
    access.vec = v;
  }

  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  for (int32_t r = 0; r < regs->getInSize(LinearLayout::Register);
       r += access.vec) {
    int64_t o = offsetOf(*inverse, tail(regs->applyOne(LinearLayout::Register, r)));
    Value offset = o ? LLVM::XOrOp::create(b, loc, threadOffset, i32Const(b, loc, o))
                     : threadOffset;
    access.addrs.push_back(
        LLVM::GEPOp::create(b, loc, ptrTy, memTy, base, ValueRange{offset}));
  }
  return access;
}

LogicalResult storeTensor(ConversionPatternRewriter &rewriter, Location loc,
                          Operation *op, Value base, unsigned alignment,
                          Value convertedValue, RankedTensorType tensorType,
                          MemDescType memdesc, const TypeConverter &converter,
                          const LoweringContext &ctx) {
  Type regTy = converter.convertType(tensorType.getElementType());
  if (!regTy)
    return failure();
  Type memTy = getMemoryType(regTy);
  FailureOr<SharedAccess> access =
      emitElementAddresses(rewriter, loc, base, tensorType, memdesc, memTy,
                           alignment, /*vectorize=*/memTy == regTy, ctx);
  if (failed(access))
    return op->emitOpError() << "cannot address " << memdesc << " with "
                             << tensorType;
  SmallVector<Value> regs = getRegisters(rewriter, loc, convertedValue);
  unsigned vec = access->vec;
  ctx.target.barrier(rewriter, loc); // earlier readers are done (WAR)
  for (auto [g, p] : llvm::enumerate(access->addrs)) {
    if (vec == 1) {
      LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, regs[g]), p);
      continue;
    }
    auto vecTy = VectorType::get({int64_t(vec)}, memTy);
    Value packed = LLVM::PoisonOp::create(rewriter, loc, vecTy);
    for (unsigned i = 0; i < vec; ++i)
      packed = LLVM::InsertElementOp::create(rewriter, loc, packed,
                                             regs[g * vec + i],
                                             i32Const(rewriter, loc, i));
    LLVM::StoreOp::create(rewriter, loc, packed, p,
                          vec * getElementBytes(memdesc.getElementType()));
  }
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
      if (failed(storeTensor(rewriter, loc, op, base,
                             baseAlignment(op.getResult()), adaptor.getSrc(),
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
                           baseAlignment(op.getDst()), adaptor.getValue(),
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
    FailureOr<SharedAccess> access = emitElementAddresses(
        rewriter, loc, adaptor.getSrc(), type, op.getSrc().getType(), memTy,
        baseAlignment(op.getSrc()), /*vectorize=*/memTy == regTy, ctx);
    if (failed(access))
      return op.emitOpError() << "cannot address " << op.getSrc().getType()
                              << " with " << type;
    SmallVector<Value> regs;
    unsigned vec = access->vec;
    for (Value p : access->addrs) {
      if (vec == 1) {
        regs.push_back(fromMemory(
            rewriter, loc, LLVM::LoadOp::create(rewriter, loc, memTy, p),
            regTy));
        continue;
      }
      auto vecTy = VectorType::get({int64_t(vec)}, memTy);
      Value packed = LLVM::LoadOp::create(
          rewriter, loc, vecTy, p,
          vec * getElementBytes(op.getSrc().getType().getElementType()));
      for (unsigned i = 0; i < vec; ++i)
        regs.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, packed, i32Const(rewriter, loc, i)));
    }
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
