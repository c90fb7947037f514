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
// bytes, within the buffer's alignment). Where the composed layout is that of
// the target's warp-wide matrix store (stmatrix: a lane's 32-bit word of
// 8-, 16- or 32-bit elements and lane bits 0-1 fill 16-byte rows, one, two
// or four matrices an instruction), stores use it instead, and loads use
// the warp-wide matrix load (ldmatrix, also where lane bits 2-4 run along
// 16-byte rows of 16-bit elements: the transposed form); where lanes run along the contiguous
// dimension and registers across it, loads use the target's transposing
// load if it has one (TransposedSharedLoad.cpp).
//
// The barriers that order accesses of different threads are
// tile-insert-barriers' business; this file emits none of its own.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Conversion/TileToLLVM/TargetInfo.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

FailureOr<SharedAddresses> kiln::emitSharedAddresses(
    OpBuilder &b, Location loc, Value base, RankedTensorType tensorType,
    Value view, Type memTy, unsigned maxVectorBytes,
    const LoweringContext &ctx) {
  return emitSharedAddressesFor(
      b, loc, base, tensorType, cast<MemDescType>(view.getType()),
      getSharedXorOffset(view), getSharedBaseAlignment(view), memTy,
      maxVectorBytes, ctx);
}

FailureOr<SharedAddresses> kiln::emitSharedAddressesFor(
    OpBuilder &b, Location loc, Value base, RankedTensorType tensorType,
    MemDescType memdesc, int64_t xorOffset, unsigned alignment, Type memTy,
    unsigned maxVectorBytes, const LoweringContext &ctx) {
  FailureOr<SharedAccessPlan> plan =
      planSharedAccess(tensorType, memdesc, alignment,
                       std::max(maxVectorBytes, 1u), xorOffset);
  if (failed(plan))
    return failure();
  // The per-thread part: XOR of the offsets of the set lane and warp bits,
  // and of the view's place in its slot.
  ThreadIds ids = getThreadIds(b, loc, ctx);
  Value threadOffset = i32Const(b, loc, xorOffset);
  Value redundant;
  auto addPart = [&](Value index, ArrayRef<int64_t> bitOffsets,
                     unsigned redundantMask) {
    threadOffset = xorSetBits(b, loc, threadOffset, index, bitOffsets);
    if (redundantMask == 0)
      return;
    Value bits = LLVM::AndOp::create(b, loc, index,
                                     i32Const(b, loc, redundantMask));
    Value any = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, bits,
                                     i32Const(b, loc, 0));
    redundant = redundant ? LLVM::OrOp::create(b, loc, redundant, any) : any;
  };
  addPart(ids.lane, plan->laneBitOffsets, plan->redundantLaneMask);
  addPart(ids.warp, plan->warpBitOffsets, plan->redundantWarpMask);

  // Bits the per-thread part may set. A register offset's bits outside them
  // are added instead of XORed (the same value, the per-thread part never
  // setting them): LLVM then folds them into the access's immediate offset,
  // and registers whose offsets share their thread bits share one address,
  // instead of one address per register.
  int64_t threadBits = xorOffset;
  for (int64_t o : plan->laneBitOffsets)
    threadBits |= o;
  for (int64_t o : plan->warpBitOffsets)
    threadBits |= o;

  SharedAddresses result;
  result.vec = plan->vec;
  result.redundantThread = redundant;
  for (int32_t r = 0, e = plan->registerOffsets.size(); r < e;
       r += result.vec) {
    result.addrs.push_back(sharedElementAddress(
        b, loc, base, memTy, threadOffset, threadBits,
        plan->registerOffsets[r], plan->paddings));
    result.duplicate.push_back((r & plan->redundantRegisterMask) != 0);
  }
  return result;
}

Value kiln::sharedElementAddress(
    OpBuilder &b, Location loc, Value base, Type memTy, Value threadOffset,
    int64_t threadBits, int64_t registerOffset,
    ArrayRef<std::pair<unsigned, unsigned>> paddings) {
  int64_t o = registerOffset;
  Value offset = threadOffset;
  int64_t xored = o, added = 0;
  if (o > 0 && threadBits >= 0) {
    xored = o & threadBits;
    added = o & ~threadBits;
  }
  // Padded layouts: o + sum((o >> log2 interval) * padding). The added part
  // that is a multiple of every interval passes through the shifts
  // unchanged, so it and its padding are added after them as one constant:
  // LLVM folds that into the access's immediate, where the whole offset
  // inside the shifts would give each register its own address.
  int64_t outer = 0;
  if (!paddings.empty() && added > 0) {
    unsigned widest = 0;
    for (auto [log2Interval, padding] : paddings)
      widest = std::max(widest, log2Interval);
    outer = added & ~((int64_t(1) << widest) - 1);
    added -= outer;
  }
  auto nuwNsw =
      LLVM::IntegerOverflowFlags::nuw | LLVM::IntegerOverflowFlags::nsw;
  if (xored)
    offset = LLVM::XOrOp::create(b, loc, offset, i32Const(b, loc, xored));
  if (added)
    offset = LLVM::AddOp::create(b, loc, offset, i32Const(b, loc, added),
                                 nuwNsw);
  Value linear = offset;
  for (auto [log2Interval, padding] : paddings)
    offset = LLVM::AddOp::create(
        b, loc, offset,
        LLVM::ShlOp::create(
            b, loc,
            LLVM::LShrOp::create(b, loc, linear,
                                 i32Const(b, loc, log2Interval)),
            i32Const(b, loc, llvm::Log2_32(padding))));
  if (outer) {
    int64_t padded = outer;
    for (auto [log2Interval, padding] : paddings)
      padded += (outer >> log2Interval) * int64_t(padding);
    offset = LLVM::AddOp::create(b, loc, offset, i32Const(b, loc, padded),
                                 nuwNsw);
  }
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::GEPOp::create(b, loc, ptrTy, memTy, base, ValueRange{offset});
}

void kiln::storeSharedVectors(OpBuilder &b, Location loc,
                              const SharedAddresses &access,
                              ArrayRef<Value> regs, Type memTy,
                              unsigned elemBytes) {
  unsigned vec = access.vec;
  for (auto [g, p] : llvm::enumerate(access.addrs)) {
    if (vec == 1) {
      LLVM::StoreOp::create(b, loc, toMemory(b, loc, regs[g]), p);
      continue;
    }
    auto vecTy = VectorType::get({int64_t(vec)}, memTy);
    Value packed = LLVM::PoisonOp::create(b, loc, vecTy);
    for (unsigned i = 0; i < vec; ++i)
      packed = LLVM::InsertElementOp::create(b, loc, packed, regs[g * vec + i],
                                             i32Const(b, loc, i));
    LLVM::StoreOp::create(b, loc, packed, p, vec * elemBytes);
  }
}

SmallVector<Value> kiln::loadSharedVectors(
    OpBuilder &b, Location loc, const SharedAddresses &access, Type memTy,
    Type regTy, unsigned elemBytes, function_ref<void(LLVM::LoadOp)> mark) {
  SmallVector<Value> regs;
  unsigned vec = access.vec;
  for (Value p : access.addrs) {
    if (vec == 1) {
      auto load = LLVM::LoadOp::create(b, loc, memTy, p);
      if (mark)
        mark(load);
      regs.push_back(fromMemory(b, loc, load, regTy));
      continue;
    }
    auto vecTy = VectorType::get({int64_t(vec)}, memTy);
    auto load = LLVM::LoadOp::create(b, loc, vecTy, p, vec * elemBytes);
    if (mark)
      mark(load);
    for (unsigned i = 0; i < vec; ++i)
      regs.push_back(
          LLVM::ExtractElementOp::create(b, loc, load, i32Const(b, loc, i)));
  }
  return regs;
}

namespace {

/// How a tensor moves between registers and a buffer with the target's
/// warp-wide 8x8 matrix instructions of 16-bit elements (ldmatrix /
/// stmatrix), where the composed layout has their shape. The instructions
/// move one 32-bit word a lane per matrix: `wordBits` are the register bits
/// that run through a word (elements of 1, 2 or 4 bytes: two, one or none),
/// `matrixBits` the other register bits, the first `group` (0-2) of which
/// pick the matrices of one instruction (x1, x2, x4), the rest its
/// iterations. Lane l gives the address of row l % 8 of matrix l / 8
/// (`rowBits`: the offset each lane bit moves it). Not transposed (any
/// element size): a lane's word and lane bits 0-1 fill a 16-byte row, lane
/// bits 2-4 pick rows. Transposed (16-bit elements): lane bits 2-4 run along
/// a 16-byte row, the word's pair and lane bits 0-1 pick rows.
struct MatrixAccess {
  SharedAccessPlan plan;
  int64_t rowBits[5];
  bool trans;
  int64_t xorOffset;
  SmallVector<unsigned> wordBits, matrixBits;
  unsigned group;
};

std::optional<MatrixAccess>
planMatrixAccess(RankedTensorType tensorType, Value view, Type memTy,
                 size_t numRegs, bool load, const LoweringContext &ctx) {
  auto memdesc = cast<MemDescType>(view.getType());
  unsigned bytes = getElementBytes(memdesc.getElementType());
  if (ctx.warpSize != 32 || (bytes != 1 && bytes != 2 && bytes != 4) ||
      !memTy.isIntOrFloat() || memTy.getIntOrFloatBitWidth() != bytes * 8 ||
      getSharedBaseAlignment(view) < 16)
    return std::nullopt;
  int64_t rowElems = 16 / bytes, wordElems = 4 / bytes;
  int64_t xorOffset = getSharedXorOffset(view);
  FailureOr<SharedAccessPlan> plan =
      planSharedAccess(tensorType, memdesc, getSharedBaseAlignment(view),
                       /*maxVectorBytes=*/4, xorOffset);
  // Warps may repeat each other (a tensor smaller than the warps' tile):
  // loads then read the same rows, and stores write the same values to the
  // same addresses, as the element-wise stores do.
  if (failed(plan) || !plan->paddings.empty() || plan->redundantRegisterMask ||
      plan->redundantLaneMask || plan->laneBitOffsets.size() != 5 ||
      xorOffset % rowElems)
    return std::nullopt;
  ArrayRef<int64_t> offs = plan->registerOffsets;
  if (numRegs < 2 || !llvm::isPowerOf2_64(numRegs) || offs.size() != numRegs ||
      !isXorLinear(offs))
    return std::nullopt;
  unsigned regBits = llvm::Log2_64(numRegs);
  ArrayRef<int64_t> lanes = plan->laneBitOffsets;
  auto rowAligned = [&](int64_t o) { return o != 0 && o % rowElems == 0; };
  if (!llvm::all_of(plan->warpBitOffsets,
                    [&](int64_t o) { return o % rowElems == 0; }))
    return std::nullopt;
  auto regOffset = [&](unsigned bit) { return offs[size_t(1) << bit]; };
  MatrixAccess access{*plan, {}, false, xorOffset, {}, {}, 0};
  auto matrices = [&](ArrayRef<unsigned> word) -> bool {
    access.wordBits.assign(word.begin(), word.end());
    access.matrixBits.clear();
    for (unsigned bit = 0; bit < regBits; ++bit) {
      if (llvm::is_contained(word, bit))
        continue;
      if (!rowAligned(regOffset(bit)))
        return false;
      access.matrixBits.push_back(bit);
    }
    access.group = std::min<unsigned>(2, access.matrixBits.size());
    return true;
  };
  auto matrixOffset = [&](unsigned i) {
    return i < access.group ? regOffset(access.matrixBits[i]) : int64_t(0);
  };
  // Not transposed: the word's elements at offsets 1, 2 (by register bit),
  // lanes 0-1 the next words of the row, lanes 2-4 rows.
  SmallVector<unsigned> word;
  for (int64_t step = 1; step < wordElems; step <<= 1)
    for (unsigned bit = 0; bit < regBits; ++bit)
      if (regOffset(bit) == step)
        word.push_back(bit);
  if (int64_t(1) << word.size() == wordElems && lanes[0] == wordElems &&
      lanes[1] == 2 * wordElems && rowAligned(lanes[2]) &&
      rowAligned(lanes[3]) && rowAligned(lanes[4]) && matrices(word)) {
    int64_t bits[5] = {lanes[2], lanes[3], lanes[4], matrixOffset(0),
                       matrixOffset(1)};
    llvm::copy(bits, access.rowBits);
    return access;
  }
  // Transposed (16-bit): register bit 0 is the word's pair, a row apart.
  if (bytes == 2 && rowAligned(regOffset(0)) && rowAligned(lanes[0]) &&
      rowAligned(lanes[1]) && lanes[2] == 1 && lanes[3] == 2 &&
      lanes[4] == 4 && matrices({0})) {
    int64_t bits[5] = {regOffset(0), lanes[0], lanes[1], matrixOffset(0),
                       matrixOffset(1)};
    llvm::copy(bits, access.rowBits);
    access.trans = true;
    return access;
  }
  return std::nullopt;
}

/// The register of matrix `m` of the instruction at register `r` holding
/// the word's element `i`.
size_t matrixRegister(const MatrixAccess &access, size_t r, unsigned m,
                      unsigned i) {
  for (unsigned j = 0; j < access.group; ++j)
    if (m & (1u << j))
      r |= size_t(1) << access.matrixBits[j];
  for (auto [j, bit] : llvm::enumerate(access.wordBits))
    if (i & (1u << j))
      r |= size_t(1) << bit;
  return r;
}

/// Whether register `r` starts an instruction (its word and group bits
/// clear).
bool startsMatrices(const MatrixAccess &access, size_t r) {
  for (unsigned bit : access.wordBits)
    if (r & (size_t(1) << bit))
      return false;
  for (unsigned j = 0; j < access.group; ++j)
    if (r & (size_t(1) << access.matrixBits[j]))
      return false;
  return true;
}

/// The address of the row this lane gives for the matrices of register
/// group `r`.
Value matrixRowAddress(OpBuilder &b, Location loc, Value base, Type memTy,
                       const MatrixAccess &access, size_t r,
                       const LoweringContext &ctx, Value &threadOffset) {
  if (!threadOffset) {
    ThreadIds ids = getThreadIds(b, loc, ctx);
    threadOffset = xorSetBits(b, loc, i32Const(b, loc, access.xorOffset),
                              ids.lane, access.rowBits);
    threadOffset =
        xorSetBits(b, loc, threadOffset, ids.warp, access.plan.warpBitOffsets);
  }
  int64_t o = access.plan.registerOffsets[r];
  Value offset =
      o ? LLVM::XOrOp::create(b, loc, threadOffset, i32Const(b, loc, o))
        : threadOffset;
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::GEPOp::create(b, loc, ptrTy, memTy, base, ValueRange{offset});
}

/// Stores 16-bit registers with the target's warp-wide matrix store where
/// the composed layout has its shape (planMatrixAccess).
/// Returns false (having emitted nothing) where it does not apply.
bool storeMatrices(OpBuilder &b, Location loc, Value base,
                   RankedTensorType tensorType, Value view, Type memTy,
                   ArrayRef<Value> regs, const LoweringContext &ctx) {
  if (!ctx.target.hasMatrixStore16())
    return false;
  std::optional<MatrixAccess> access = planMatrixAccess(
      tensorType, view, memTy, regs.size(), /*load=*/false, ctx);
  if (!access)
    return false;
  unsigned wordElems = 1u << access->wordBits.size();
  Type wordTy = wordElems == 1 ? memTy : VectorType::get({wordElems}, memTy);
  Type i32 = b.getI32Type();
  Value threadOffset;
  for (size_t r = 0; r < regs.size(); ++r) {
    if (!startsMatrices(*access, r))
      continue;
    SmallVector<Value> sources;
    for (unsigned m = 0; m < (1u << access->group); ++m) {
      Value word;
      if (wordElems == 1) {
        word = toMemory(b, loc, regs[matrixRegister(*access, r, m, 0)]);
      } else {
        word = LLVM::PoisonOp::create(b, loc, wordTy);
        for (unsigned i = 0; i < wordElems; ++i)
          word = LLVM::InsertElementOp::create(
              b, loc, word,
              toMemory(b, loc, regs[matrixRegister(*access, r, m, i)]),
              i32Const(b, loc, i));
      }
      sources.push_back(LLVM::BitcastOp::create(b, loc, i32, word));
    }
    ctx.target.storeMatrices16(
        b, loc,
        matrixRowAddress(b, loc, base, memTy, *access, r, ctx, threadOffset),
        sources, access->trans);
  }
  return true;
}

/// Loads 16-bit registers with the target's warp-wide matrix load where the
/// composed layout has its shape (planMatrixAccess, transposed or not), in
/// `regs` (of `regTy`); false (having emitted nothing) where it does not
/// apply.
bool loadMatrices(OpBuilder &b, Location loc, Value base,
                  RankedTensorType tensorType, Value view, Type memTy,
                  Type regTy, SmallVectorImpl<Value> &regs,
                  const LoweringContext &ctx) {
  if (!ctx.target.hasMatrixLoad16())
    return false;
  int64_t numRegs = 1;
  FailureOr<LinearLayout> ll = getLinearLayout(tensorType);
  if (failed(ll))
    return false;
  numRegs <<= ll->getBases(LinearLayout::Register).size();
  std::optional<MatrixAccess> access =
      planMatrixAccess(tensorType, view, memTy, numRegs, /*load=*/true, ctx);
  if (!access)
    return false;
  unsigned wordElems = 1u << access->wordBits.size();
  Type wordTy = wordElems == 1 ? memTy : VectorType::get({wordElems}, memTy);
  regs.assign(numRegs, Value());
  Value threadOffset;
  for (int64_t r = 0; r < numRegs; ++r) {
    if (!startsMatrices(*access, r))
      continue;
    SmallVector<Value> words = ctx.target.loadMatrices16(
        b, loc,
        matrixRowAddress(b, loc, base, memTy, *access, r, ctx, threadOffset),
        access->trans, 1u << access->group);
    for (unsigned m = 0; m < (1u << access->group); ++m) {
      Value word = LLVM::BitcastOp::create(b, loc, wordTy, words[m]);
      for (unsigned i = 0; i < wordElems; ++i) {
        Value e = wordElems == 1
                      ? word
                      : LLVM::ExtractElementOp::create(b, loc, word,
                                                       i32Const(b, loc, i))
                            .getResult();
        regs[matrixRegister(*access, r, m, i)] = fromMemory(b, loc, e, regTy);
      }
    }
  }
  return true;
}

LogicalResult storeTensor(ConversionPatternRewriter &rewriter, Location loc,
                          Operation *op, Value base, Value view,
                          Value convertedValue, RankedTensorType tensorType,
                          const TypeConverter &converter,
                          const LoweringContext &ctx) {
  auto memdesc = cast<MemDescType>(view.getType());
  Type regTy = converter.convertType(tensorType.getElementType());
  if (!regTy)
    return failure();
  Type memTy = getMemoryType(regTy);
  SmallVector<Value> regs = getRegisters(rewriter, loc, convertedValue);
  if (storeMatrices(rewriter, loc, base, tensorType, view, memTy, regs, ctx))
    return success();
  FailureOr<SharedAddresses> access =
      emitSharedAddresses(rewriter, loc, base, tensorType, view, memTy,
                          memTy == regTy ? 16 : 0, ctx);
  if (failed(access))
    return op->emitOpError() << "cannot address " << memdesc << " with "
                             << tensorType;
  storeSharedVectors(rewriter, loc, *access, regs, memTy,
                     getElementBytes(memdesc.getElementType()));
  return success();
}

struct LocalAllocOpConversion : TileOpConversion<LocalAllocOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = getScratchBase(rewriter, loc, op);
    if (Value src = op.getSrc())
      if (failed(storeTensor(rewriter, loc, op, base, op.getResult(),
                             adaptor.getSrc(),
                             cast<RankedTensorType>(src.getType()),
                             *getTypeConverter(), ctx)))
        return failure();
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct LocalStoreOpConversion : TileOpConversion<LocalStoreOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(storeTensor(rewriter, op.getLoc(), op, adaptor.getDst(),
                           op.getDst(), adaptor.getValue(),
                           cast<RankedTensorType>(op.getValue().getType()),
                           *getTypeConverter(), ctx)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalLoadOpConversion : TileOpConversion<LocalLoadOp> {
  using TileOpConversion::TileOpConversion;

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
    SmallVector<Value> regs;
    if (loadMatrices(rewriter, loc, adaptor.getSrc(), type, op.getSrc(), memTy,
                     regTy, regs, ctx)) {
      rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, regs));
      return success();
    }
    bool synced = TileDialect::SyncedViaWaitAttrHelper(op.getContext())
                      .isAttrPresent(op);
    if (loadTransposedShared(rewriter, loc, adaptor.getSrc(), type,
                             op.getSrc(), memTy, regTy, regs, ctx,
                             [&](Operation *load) {
                               if (synced)
                                 ctx.target.annotateSyncedSharedAccess(load);
                             })) {
      rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, regs));
      return success();
    }
    FailureOr<SharedAddresses> access =
        emitSharedAddresses(rewriter, loc, adaptor.getSrc(), type, op.getSrc(),
                            memTy, memTy == regTy ? 16 : 0, ctx);
    if (failed(access))
      return op.emitOpError() << "cannot address " << op.getSrc().getType()
                              << " with " << type;
    regs = loadSharedVectors(
        rewriter, loc, *access, memTy, regTy,
        getElementBytes(op.getSrc().getType().getElementType()),
        [&](LLVM::LoadOp load) {
          if (synced)
            ctx.target.annotateSyncedSharedAccess(load);
        });
    rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, regs));
    return success();
  }
};

struct MemDescIndexOpConversion : ConvertOpToLLVMPattern<MemDescIndexOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MemDescIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Slot i starts i allocation strides after the ring.
    int64_t bytes = getSharedStrideBytes(op.getSrc().getType(), 0);
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

/// Replaces the view `op` with its source's address moved by `bytes`.
void replaceWithMovedBase(ConversionPatternRewriter &rewriter, Operation *op,
                          Value base, int64_t bytes) {
  if (bytes == 0) {
    rewriter.replaceOp(op, base);
    return;
  }
  Location loc = op->getLoc();
  auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
  rewriter.replaceOp(op, LLVM::GEPOp::create(
                             rewriter, loc, ptrTy, rewriter.getI8Type(), base,
                             ValueRange{i32Const(rewriter, loc, bytes)}));
}

struct MemDescSubsliceOpConversion
    : ConvertOpToLLVMPattern<MemDescSubsliceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MemDescSubsliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Offsets along leading (ring) dimensions move the base; the others are
    // XORed into every access (getSharedXorOffset).
    MemDescType src = op.getSrc().getType();
    unsigned lead = src.getShape().size() - src.getSharedLayout().getRank();
    int64_t bytes = 0;
    for (unsigned d = 0; d < lead; ++d)
      bytes += op.getOffsets()[d] * getSharedStrideBytes(src, d);
    replaceWithMovedBase(rewriter, op, adaptor.getSrc(), bytes);
    return success();
  }
};

/// A reinterpreted view starts at its source's first element: the source's
/// XOR offset (a multiple of its contiguous size) becomes a base move.
struct MemDescReinterpretOpConversion
    : ConvertOpToLLVMPattern<MemDescReinterpretOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MemDescReinterpretOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemDescType src = op.getSrc().getType();
    int64_t xorOffset = getSharedXorOffset(op.getSrc());
    FailureOr<int64_t> n = getContiguousViewElements(src);
    if (failed(n) || (xorOffset & (*n - 1)) != 0)
      return op.emitOpError()
             << "the source view starts at element " << xorOffset
             << " of its slot, which is not a multiple of its "
             << (succeeded(n) ? *n : 0)
             << " elements: its bytes are not one contiguous range";
    int64_t bytes = xorOffset * getElementBytes(src.getElementType());
    replaceWithMovedBase(rewriter, op, adaptor.getSrc(), bytes);
    return success();
  }
};

/// Permuted and reshaped views are the same bytes: the same address.
template <typename ViewOp>
struct SameAddressViewConversion : ConvertOpToLLVMPattern<ViewOp> {
  using ConvertOpToLLVMPattern<ViewOp>::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ViewOp op, typename ViewOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

struct BarrierOpConversion : TileOpConversion<BarrierOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ctx.target.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
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
  patterns.add<LocalDeallocOpConversion, MemDescIndexOpConversion,
               MemDescSubsliceOpConversion, MemDescReinterpretOpConversion,
               SameAddressViewConversion<MemDescPermuteOp>,
               SameAddressViewConversion<MemDescReshapeOp>>(converter);
}
