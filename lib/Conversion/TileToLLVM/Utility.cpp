//===- Utility.cpp - Shared pieces of the tile lowering -------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "llvm/Support/MathExtras.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "kiln/Dialect/Tile/IR/Utility.h"

#include "llvm/ADT/DenseMap.h"
#include <map>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

TileTypeConverter::TileTypeConverter(MLIRContext *ctx)
    : LLVMTypeConverter(ctx) {
  addConversion([ctx](PointerType p) -> Type {
    return LLVM::LLVMPointerType::get(ctx, p.getAddressSpace());
  });
  // Async tokens order ops but carry nothing.
  addConversion([ctx](AsyncTokenType) -> Type {
    return IntegerType::get(ctx, 32);
  });
  // A tensor descriptor is the (generic) address of the target's
  // descriptor object; how it is passed is the target's (markKernels).
  addConversion([ctx](TensorDescType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, 0);
  });
  // A shared buffer is the address of its first element.
  addConversion([ctx](MemDescType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, 3);
  });
  addConversion([this](RankedTensorType t) -> std::optional<Type> {
    FailureOr<LinearLayout> ll = getLinearLayout(t);
    if (failed(ll))
      return std::nullopt;
    Type elem = convertType(t.getElementType());
    if (!elem)
      return std::nullopt;
    SmallVector<Type> fields(ll->getInSize(LinearLayout::Register), elem);
    return LLVM::LLVMStructType::getLiteral(t.getContext(), fields);
  });
}

Value kiln::i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(v));
}

SmallVector<Value> kiln::unpackStruct(OpBuilder &b, Location loc, Value v) {
  auto st = cast<LLVM::LLVMStructType>(v.getType());
  SmallVector<Value> out;
  for (unsigned i = 0, e = st.getBody().size(); i < e; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, v, i));
  return out;
}

Value kiln::packStruct(OpBuilder &b, Location loc, Type structType,
                       ValueRange values) {
  Value s = LLVM::UndefOp::create(b, loc, structType);
  for (auto [i, v] : llvm::enumerate(values))
    s = LLVM::InsertValueOp::create(b, loc, s, v, int64_t(i));
  return s;
}

SmallVector<Value> kiln::getRegisters(OpBuilder &b, Location loc,
                                      Value converted) {
  if (isa<LLVM::LLVMStructType>(converted.getType()))
    return unpackStruct(b, loc, converted);
  return {converted};
}

ThreadIds kiln::getThreadIds(OpBuilder &b, Location loc,
                             const LoweringContext &ctx) {
  Value tid = ctx.target.threadId(b, loc);
  Value ws = i32Const(b, loc, ctx.warpSize);
  return {LLVM::URemOp::create(b, loc, tid, ws),
          LLVM::UDivOp::create(b, loc, tid, ws)};
}

Value kiln::xorSetBits(OpBuilder &b, Location loc, Value acc, Value index,
                       ArrayRef<int64_t> bitOffsets) {
  for (auto [bit, o] : llvm::enumerate(bitOffsets)) {
    if (o == 0)
      continue;
    Value set = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, index, i32Const(b, loc, bit)),
        i32Const(b, loc, 1));
    acc = LLVM::XOrOp::create(
        b, loc, acc, LLVM::MulOp::create(b, loc, set, i32Const(b, loc, o)));
  }
  return acc;
}

SmallVector<SmallVector<Value>>
kiln::emitCoordinates(OpBuilder &b, Location loc, const LinearLayout &layout,
                      const LoweringContext &ctx) {
  ThreadIds ids = getThreadIds(b, loc, ctx);
  unsigned rank = layout.getRank();
  // The lane and warp part of every coordinate: XOR of the bases of the set
  // bits of the lane and warp ids.
  SmallVector<Value> base(rank, i32Const(b, loc, 0));
  auto addBits = [&](LinearLayout::InDim in, Value id) {
    for (unsigned k = 0; k < rank; ++k) {
      SmallVector<int64_t> column;
      for (const LinearLayout::Basis &basis : layout.getBases(in))
        column.push_back(basis[k]);
      base[k] = xorSetBits(b, loc, base[k], id, column);
    }
  };
  addBits(LinearLayout::Lane, ids.lane);
  addBits(LinearLayout::Warp, ids.warp);
  SmallVector<SmallVector<Value>> coords;
  for (int32_t r = 0; r < layout.getInSize(LinearLayout::Register); ++r) {
    LinearLayout::Basis c = layout.applyOne(LinearLayout::Register, r);
    SmallVector<Value> reg;
    for (unsigned k = 0; k < rank; ++k)
      reg.push_back(c[k] == 0 ? base[k]
                              : LLVM::XOrOp::create(b, loc, base[k],
                                                    i32Const(b, loc, c[k])));
    coords.push_back(reg);
  }
  return coords;
}

Value kiln::emitLinearIndex(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                            ArrayRef<int32_t> sizes) {
  Value idx = i32Const(b, loc, 0);
  for (auto [c, s] : llvm::zip(coords, sizes)) {
    idx = LLVM::MulOp::create(b, loc, idx, i32Const(b, loc, s));
    idx = LLVM::AddOp::create(b, loc, idx, c);
  }
  return idx;
}

Value kiln::getScratchBase(OpBuilder &b, Location loc, Operation *op) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base =
      LLVM::AddressOfOp::create(b, loc, ptrTy, LoweringContext::kSharedGlobal);
  int64_t offset = 0;
  if (auto a = op->getAttrOfType<IntegerAttr>(
          TileDialect::ScratchOffsetAttrHelper::getNameStr()))
    offset = a.getInt();
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), base,
                             ValueRange{i32Const(b, loc, offset)});
}

/// Integers narrower than a byte or of odd width (i1, i3, i7, i12, the i4
/// of f4E2M1FN registers) live in memory as the next power-of-two byte size,
/// matching getElementBytes; LLVM would otherwise bit-pack vectors of them.
Type kiln::getMemoryType(Type t) {
  if (auto i = dyn_cast<IntegerType>(t)) {
    unsigned bits = llvm::PowerOf2Ceil(std::max(8u, i.getWidth()));
    if (bits != i.getWidth())
      return IntegerType::get(t.getContext(), bits);
  }
  return t;
}

Value kiln::toMemory(OpBuilder &b, Location loc, Value v) {
  Type mem = getMemoryType(v.getType());
  if (mem != v.getType())
    return LLVM::ZExtOp::create(b, loc, mem, v);
  return v;
}

Value kiln::fromMemory(OpBuilder &b, Location loc, Value v, Type regType) {
  if (v.getType() != regType)
    return LLVM::TruncOp::create(b, loc, regType, v);
  return v;
}

/// `v` (any scalar of up to 64 bits, or a pointer) moved between lanes by
/// `shuffle32`, which moves one i32: pointers as i64, 64-bit values as two
/// halves, narrower ones widened.
static Value shuffleScalar(OpBuilder &b, Location loc, Value v,
                           function_ref<Value(Value)> shuffle32) {
  Type t = v.getType();
  Type i32 = b.getI32Type();
  if (isa<LLVM::LLVMPointerType>(t)) {
    Value i = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v);
    return LLVM::IntToPtrOp::create(b, loc, t,
                                    shuffleScalar(b, loc, i, shuffle32));
  }
  unsigned bits = t.getIntOrFloatBitWidth();
  if (bits == 64) {
    auto vecTy = VectorType::get({2}, i32);
    Value vec = LLVM::BitcastOp::create(b, loc, vecTy, v);
    Value out = LLVM::UndefOp::create(b, loc, vecTy);
    for (int i = 0; i < 2; ++i) {
      Value idx = i32Const(b, loc, i);
      Value part = LLVM::ExtractElementOp::create(b, loc, vec, idx);
      out = LLVM::InsertElementOp::create(b, loc, out, shuffle32(part), idx);
    }
    return LLVM::BitcastOp::create(b, loc, t, out);
  }
  Value asInt = v;
  Type intTy = b.getIntegerType(bits);
  if (!isa<IntegerType>(t))
    asInt = LLVM::BitcastOp::create(b, loc, intTy, v);
  if (bits < 32)
    asInt = LLVM::ZExtOp::create(b, loc, i32, asInt);
  Value r = shuffle32(asInt);
  if (bits < 32)
    r = LLVM::TruncOp::create(b, loc, intTy, r);
  if (!isa<IntegerType>(t))
    r = LLVM::BitcastOp::create(b, loc, t, r);
  return r;
}

Value kiln::shuffleXor(OpBuilder &b, Location loc, Value v, unsigned mask,
                       Value laneId, const LoweringContext &ctx) {
  return shuffleScalar(b, loc, v, [&](Value x) {
    return ctx.target.shuffleXorI32(b, loc, x, mask, laneId);
  });
}

Value kiln::shuffleIdx(OpBuilder &b, Location loc, Value v, Value srcLane,
                       const LoweringContext &ctx) {
  return shuffleScalar(b, loc, v, [&](Value x) {
    return ctx.target.shuffleIdxI32(b, loc, x, srcLane);
  });
}

SmallVector<Value>
kiln::moveThroughShared(OpBuilder &b, Location loc, Operation *op,
                        ArrayRef<Value> srcRegs, const LinearLayout &srcLayout,
                        const LinearLayout &dstLayout, Type regType,
                        const LoweringContext &ctx) {
  Type memTy = getMemoryType(regType);
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = getScratchBase(b, loc, op);
  // In rounds (tile.scratch_rounds): the first log2(rounds) coordinate bits
  // no thread index sets split the tile; each register's round is a
  // constant, and a round's elements are indexed with those bits removed.
  int64_t rounds = tile::getScratchRounds(op);
  auto roundBits = tile::getScratchRoundBits(srcLayout, dstLayout);
  roundBits.resize(std::min<size_t>(roundBits.size(), llvm::Log2_64(rounds)));
  rounds = int64_t(1) << roundBits.size();
  SmallVector<int32_t> sizes(dstLayout.getOutSizes());
  for (auto [d, k] : roundBits)
    sizes[d] /= 2;
  auto roundOf = [&](const LinearLayout &l, int32_t reg) {
    LinearLayout::Basis c = l.applyOne(LinearLayout::Register, reg);
    int64_t r = 0;
    for (auto [i, bit] : llvm::enumerate(roundBits))
      r |= int64_t((c[bit.first] >> bit.second) & 1) << i;
    return r;
  };
  // Removes the round bits from each coordinate (highest first, so lower
  // bit positions stay valid).
  auto address = [&](ArrayRef<Value> coords) {
    SmallVector<Value> c(coords);
    SmallVector<std::pair<unsigned, unsigned>> byBit(roundBits);
    llvm::sort(byBit, [](auto x, auto y) { return x.second > y.second; });
    for (auto [d, k] : byBit) {
      Value low = LLVM::AndOp::create(b, loc, c[d],
                                      i32Const(b, loc, (int32_t(1) << k) - 1));
      Value high = LLVM::LShrOp::create(b, loc, c[d], i32Const(b, loc, k + 1));
      high = LLVM::ShlOp::create(b, loc, high, i32Const(b, loc, k));
      c[d] = LLVM::OrOp::create(b, loc, high, low);
    }
    Value idx = emitLinearIndex(b, loc, c, sizes);
    return LLVM::GEPOp::create(b, loc, ptrTy, memTy, base, ValueRange{idx});
  };
  SmallVector<SmallVector<Value>> srcCoords, dstCoords;
  SmallVector<Value> out(dstLayout.getInSize(LinearLayout::Register));
  for (int64_t round = 0; round < rounds; ++round) {
    // The buffer may still be read by the previous user of this scratch
    // (or the previous round).
    ctx.target.barrier(b, loc);
    if (round == 0)
      srcCoords = emitCoordinates(b, loc, srcLayout, ctx);
    for (auto [r, v] : llvm::enumerate(srcRegs))
      if (roundOf(srcLayout, r) == round) {
        Value p = address(srcCoords[r]);
        LLVM::StoreOp::create(b, loc, toMemory(b, loc, v), p);
      }
    ctx.target.barrier(b, loc);
    if (round == 0)
      dstCoords = emitCoordinates(b, loc, dstLayout, ctx);
    for (auto [r, c] : llvm::enumerate(dstCoords))
      if (roundOf(dstLayout, r) == round) {
        Value p = address(c);
        out[r] = fromMemory(b, loc, LLVM::LoadOp::create(b, loc, memTy, p),
                            regType);
      }
  }
  return out;
}

std::map<SmallVector<int32_t>, unsigned>
kiln::registersByCoordinate(const LinearLayout &layout) {
  std::map<SmallVector<int32_t>, unsigned> out;
  for (int32_t r = layout.getInSize(LinearLayout::Register) - 1; r >= 0; --r) {
    auto c = layout.applyOne(LinearLayout::Register, r);
    out[SmallVector<int32_t>(c.begin(), c.end())] = r;
  }
  return out;
}

FailureOr<SmallVector<unsigned>> kiln::matchRegisters(
    const LinearLayout &src, const LinearLayout &dst,
    function_ref<LinearLayout::Basis(const LinearLayout::Basis &)> map) {
  std::map<SmallVector<int32_t>, unsigned> bySrc = registersByCoordinate(src);
  SmallVector<unsigned> out;
  for (int32_t r = 0; r < dst.getInSize(LinearLayout::Register); ++r) {
    auto c = map(dst.applyOne(LinearLayout::Register, r));
    auto it = bySrc.find(SmallVector<int32_t>(c.begin(), c.end()));
    if (it == bySrc.end())
      return failure();
    out.push_back(it->second);
  }
  return out;
}

bool kiln::isZeroConstant(Value v) {
  return v && (matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero()));
}

bool kiln::inControlFlowGraph(Operation *op) {
  // A warp_specialize region is inlined into its function's graph.
  return isa<FunctionOpInterface, WarpSpecializeOp>(op->getParentOp());
}

Value kiln::warpIdAtEntry(OpBuilder &b, Operation *op,
                          const LoweringContext &ctx) {
  Region *region = op->getParentRegion();
  while (region && !isa<FunctionOpInterface, WarpSpecializeOp>(
                       region->getParentOp()))
    region = region->getParentRegion();
  if (!region || region->empty())
    return ctx.target.warpId(b, op->getLoc());
  Block *entry = &region->front();
  auto it = ctx.warpIds.find(entry);
  if (it != ctx.warpIds.end() && it->second.getParentBlock() == entry)
    return it->second;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  Value warp = ctx.target.warpId(b, op->getLoc());
  ctx.warpIds[entry] = warp;
  return warp;
}

LogicalResult kiln::emitIfElse(ConversionPatternRewriter &rewriter,
                               Operation *op, Value cond,
                               function_ref<void()> thenFn,
                               function_ref<void()> elseFn) {
  if (!inControlFlowGraph(op))
    return op->emitOpError()
           << "is lowered with a branch, so it must be in a function's "
              "control-flow graph: run convert-scf-to-cf first (kiln-to-llvm "
              "does)";
  Location loc = op->getLoc();
  Block *head = rewriter.getInsertionBlock();
  Block *join = rewriter.splitBlock(head, rewriter.getInsertionPoint());
  Block *thenBlock = rewriter.createBlock(join);
  thenFn();
  LLVM::BrOp::create(rewriter, loc, ValueRange(), join);
  Block *elseBlock = join;
  if (elseFn) {
    elseBlock = rewriter.createBlock(join);
    elseFn();
    LLVM::BrOp::create(rewriter, loc, ValueRange(), join);
  }
  rewriter.setInsertionPointToEnd(head);
  LLVM::CondBrOp::create(rewriter, loc, cond, thenBlock, elseBlock);
  rewriter.setInsertionPointToStart(join);
  return success();
}

void kiln::storeAsyncCopyFill(OpBuilder &b, Location loc, Value dstAddr,
                              ArrayRef<Value> others, unsigned r, unsigned vec,
                              Type memTy, unsigned alignment,
                              const TargetInfo &target) {
  Type vecTy = vec == 1 ? memTy : VectorType::get({int64_t(vec)}, memTy);
  Value fill;
  if (others.empty()) {
    fill = LLVM::ZeroOp::create(b, loc, vecTy);
  } else if (vec == 1) {
    fill = toMemory(b, loc, others[r]);
  } else {
    fill = LLVM::PoisonOp::create(b, loc, vecTy);
    for (unsigned i = 0; i < vec; ++i)
      fill = LLVM::InsertElementOp::create(b, loc, fill,
                                           toMemory(b, loc, others[r + i]),
                                           i32Const(b, loc, i));
  }
  auto store = LLVM::StoreOp::create(b, loc, fill, dstAddr, alignment);
  // No copy in flight writes this lane's slot: the lane issued none.
  target.annotateSyncedSharedAccess(store);
}
