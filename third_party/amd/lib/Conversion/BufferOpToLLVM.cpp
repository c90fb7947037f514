//===- BufferOpToLLVM.cpp - tile_amd buffer ops to ROCDL ------------------===//
//
// A buffer op addresses memory as one scalar base plus 32-bit offsets, through
// a buffer resource (V#) built from the base: raw (stride 0), numRecords just
// under 2^31 bytes. A masked-off lane gets the offset 2^31, past the end, so
// the hardware range check makes its load return 0 (its direct-to-LDS copy
// write 0) and drops its store: no branch, and every wave issues every
// instruction, which is what lets tile-insert-wait-counts count them. Only a
// direct-to-LDS copy with a non-zero `other` branches its masked lanes
// around the copy (they store `other`), and so counts as 0 instructions.
//
//===----------------------------------------------------------------------===//

#include "../TargetInfo/AMDLowering.h"

#include "kiln/Analysis/VectorWidth.h"
#include "kiln/Dialect/Tile/IR/AsyncCopy.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"
#include "kiln/Dialect/TileAMD/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_amd;

namespace {

/// gfx9 V# word 3 for raw buffers: NUM_FORMAT float (7 << 12), DATA_FORMAT
/// 32 (4 << 15); a zero data format would disable the range check.
constexpr int64_t kRsrcFlags = (7 << 12) | (4 << 15);
constexpr int64_t kNumRecords = 0x7FFFFFFE;
constexpr int64_t kOutOfRange = int64_t(1) << 31;
/// The unit attribute Gluon's buffer_atomic_* put on their tile.atomic_rmw.
constexpr StringLiteral kBufferAtomicAttr = "tile_amd.buffer";

Value makeResource(OpBuilder &b, Location loc, Value base) {
  return ROCDL::MakeBufferRsrcOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 8), base,
      LLVM::ConstantOp::create(b, loc, b.getI16Type(), b.getI16IntegerAttr(0)),
      LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                               b.getI64IntegerAttr(kNumRecords)),
      i32Const(b, loc, kRsrcFlags));
}

/// Elements per buffer instruction: what the layout keeps consecutive, the
/// offsets are contiguous for, base and offsets are aligned for, and the
/// mask is constant over.
unsigned bufferVectorWidth(Value ptr, Value offsets, Value mask,
                           Type elementType, const LoweringContext &ctx) {
  return getOffsetVectorWidth(ptr, offsets, mask, getElementBytes(elementType),
                              ctx.axisInfo, ctx.target.getDesc().maxVectorBytes);
}

/// The integer type one instruction moves `bytes` as (i8, i16, i32, <n x i32>).
Type accessType(MLIRContext *ctx, unsigned bytes) {
  if (bytes < 4)
    return IntegerType::get(ctx, 8 * bytes);
  if (bytes == 4)
    return IntegerType::get(ctx, 32);
  return VectorType::get({bytes / 4}, IntegerType::get(ctx, 32));
}

/// Byte offset of register `r`, out of range where its mask is false.
Value byteOffset(OpBuilder &b, Location loc, ArrayRef<Value> offsets,
                 ArrayRef<Value> masks, unsigned r, unsigned elementBytes) {
  Value off = LLVM::MulOp::create(b, loc, offsets[r],
                                  i32Const(b, loc, elementBytes));
  if (masks.empty())
    return off;
  return LLVM::SelectOp::create(b, loc, masks[r], off,
                                i32Const(b, loc, kOutOfRange));
}

SmallVector<Value> operandRegisters(OpBuilder &b, Location loc, Value v) {
  return v ? unpackStruct(b, loc, v) : SmallVector<Value>();
}

struct BufferLoadOpConversion : TileOpConversion<BufferLoadOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(BufferLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    Type structTy = getTypeConverter()->convertType(type);
    Type regTy = getTypeConverter()->convertType(type.getElementType());
    if (!structTy || !regTy)
      return failure();
    Type memTy = getMemoryType(regTy);
    unsigned elemBytes = getElementBytes(type.getElementType());
    unsigned vec = bufferVectorWidth(op.getPtr(), op.getOffsets(), op.getMask(),
                                     type.getElementType(), ctx);
    Value rsrc = makeResource(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> offs = unpackStruct(rewriter, loc, adaptor.getOffsets());
    SmallVector<Value> masks = operandRegisters(rewriter, loc, adaptor.getMask());
    // A masked lane reads out of range, which returns zero bits: an `other`
    // of zeros (integer 0 or +0.0) needs no select after the load.
    Value other = op.getOther();
    bool zeroOther = other && (matchPattern(other, m_Zero()) ||
                               matchPattern(other, m_PosZeroFloat()));
    SmallVector<Value> others =
        zeroOther ? SmallVector<Value>()
                  : operandRegisters(rewriter, loc, adaptor.getOther());
    Value zero = i32Const(rewriter, loc, 0);
    Value aux = i32Const(rewriter, loc, *getBufferCacheBits(op.getCache(), false));
    Type accTy = accessType(rewriter.getContext(), vec * elemBytes);
    auto vecTy = VectorType::get({int64_t(vec)}, memTy);
    SmallVector<Value> results;
    for (unsigned r = 0; r < offs.size(); r += vec) {
      Value off = byteOffset(rewriter, loc, offs, masks, r, elemBytes);
      Value raw = ROCDL::RawPtrBufferLoadOp::create(
          rewriter, loc, accTy, rsrc, off, zero, aux, ArrayAttr(), ArrayAttr(),
          ArrayAttr());
      Value v = LLVM::BitcastOp::create(rewriter, loc, vecTy, raw);
      for (unsigned i = 0; i < vec; ++i) {
        Value e = LLVM::ExtractElementOp::create(rewriter, loc, v,
                                                 i32Const(rewriter, loc, i));
        e = fromMemory(rewriter, loc, e, regTy);
        if (!others.empty() && !masks.empty())
          e = LLVM::SelectOp::create(rewriter, loc, masks[r + i], e,
                                     others[r + i]);
        results.push_back(e);
      }
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, results));
    return success();
  }
};

struct BufferStoreOpConversion : TileOpConversion<BufferStoreOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(BufferStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getValue().getType();
    Type regTy = getTypeConverter()->convertType(type.getElementType());
    if (!regTy)
      return failure();
    Type memTy = getMemoryType(regTy);
    unsigned elemBytes = getElementBytes(type.getElementType());
    unsigned vec = bufferVectorWidth(op.getPtr(), op.getOffsets(), op.getMask(),
                                     type.getElementType(), ctx);
    Value rsrc = makeResource(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> offs = unpackStruct(rewriter, loc, adaptor.getOffsets());
    SmallVector<Value> masks = operandRegisters(rewriter, loc, adaptor.getMask());
    SmallVector<Value> values = getRegisters(rewriter, loc, adaptor.getValue());
    Value zero = i32Const(rewriter, loc, 0);
    Value aux = i32Const(rewriter, loc, *getBufferCacheBits(op.getCache(), true));
    Type accTy = accessType(rewriter.getContext(), vec * elemBytes);
    auto vecTy = VectorType::get({int64_t(vec)}, memTy);
    for (unsigned r = 0; r < offs.size(); r += vec) {
      Value v = LLVM::PoisonOp::create(rewriter, loc, vecTy);
      for (unsigned i = 0; i < vec; ++i)
        v = LLVM::InsertElementOp::create(rewriter, loc, v,
                                          toMemory(rewriter, loc, values[r + i]),
                                          i32Const(rewriter, loc, i));
      Value data = LLVM::BitcastOp::create(rewriter, loc, accTy, v);
      Value off = byteOffset(rewriter, loc, offs, masks, r, elemBytes);
      ROCDL::RawPtrBufferStoreOp::create(rewriter, loc, data, rsrc, off, zero,
                                         aux, ArrayAttr(), ArrayAttr(),
                                         ArrayAttr());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct BufferLoadToLocalOpConversion : TileOpConversion<BufferLoadToLocalOp> {
  BufferLoadToLocalOpConversion(TileTypeConverter &converter,
                                const LoweringContext &ctx,
                                const AMDLoweringHooks &hooks)
      : TileOpConversion(converter, ctx), hooks(hooks) {}

  LogicalResult
  matchAndRewrite(BufferLoadToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType ptrType = op.getPointerType();
    auto dst = cast<MemDescType>(op.getDst().getType());
    Type elemTy = dst.getElementType();
    FailureOr<AsyncCopyWidth> width = checkAsyncCopy(
        &ctx.target.getDesc(), ptrType, op.getDst(),
        bufferVectorWidth(op.getPtr(), op.getOffsets(), op.getMask(), elemTy,
                          ctx),
        [&] { return op.emitOpError(); });
    if (failed(width))
      return failure();
    Type regTy = getTypeConverter()->convertType(elemTy);
    if (!regTy)
      return failure();
    FailureOr<SharedAddresses> addrs = emitSharedAddresses(
        rewriter, loc, adaptor.getDst(), ptrType, op.getDst(),
        getMemoryType(regTy), width->bytes, ctx);
    if (failed(addrs) || addrs->vec != width->elements)
      return op.emitOpError() << "cannot address " << dst
                              << " with the layout of " << ptrType;
    Value rsrc = makeResource(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> offs = unpackStruct(rewriter, loc, adaptor.getOffsets());
    SmallVector<Value> masks = operandRegisters(rewriter, loc, adaptor.getMask());
    unsigned elemBytes = getElementBytes(elemTy);
    Value zero = i32Const(rewriter, loc, 0);
    Value aux = i32Const(rewriter, loc, *getBufferCacheBits(op.getCache(), false));
    Value size = i32Const(rewriter, loc, width->bytes);
    ArrayAttr scope =
        rewriter.getArrayAttr({hooks.scopes(rewriter.getContext()).copies});
    // A non-zero `other`: masked lanes branch around the copy (exec-masked
    // lanes write nothing) and store `other` themselves.
    bool branch = !op.masksByAddress();
    SmallVector<Value> others;
    if (branch)
      others = operandRegisters(rewriter, loc, adaptor.getOther());
    Type memTy = getMemoryType(regTy);
    // A swizzled window: each lane copies the element its slot holds, from
    // the lane that holds it (emitAsyncCopySourceLanes).
    SmallVector<Value> from = emitAsyncCopySourceLanes(
        rewriter, loc,
        RankedTensorType::get(ptrType.getShape(), elemTy,
                              ptrType.getEncoding()),
        op.getDst(), width->bytes, ctx);
    Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                         rewriter.getBoolAttr(true));
    for (auto [g, dstAddr] : llvm::enumerate(addrs->addrs)) {
      if (addrs->duplicate[g])
        continue;
      unsigned r = g * addrs->vec;
      Value slot = dstAddr;
      if (!from.empty())
        slot = shuffleSharedAddress(rewriter, loc, dstAddr, from[g], ctx);
      // The wave's base, read where every lane is active.
      Value lds = hooks.waveLdsBase(rewriter, loc, slot, width->bytes);
      auto issue = [&](Value off) {
        ROCDL::RawPtrBufferLoadLdsOp::create(rewriter, loc, rsrc, lds, size,
                                             off, zero, zero, aux, scope,
                                             ArrayAttr(), ArrayAttr());
      };
      // The byte offset (out of range where masked by address) of the
      // element this lane copies.
      auto offset = [&](ArrayRef<Value> laneMasks) {
        Value off = byteOffset(rewriter, loc, offs, laneMasks, r, elemBytes);
        return from.empty() ? off
                            : shuffleIdx(rewriter, loc, off, from[g], ctx);
      };
      if (!branch) {
        issue(offset(masks));
        continue;
      }
      Value addr = dstAddr;
      auto fill = [&] {
        storeAsyncCopyFill(rewriter, loc, addr, others, r, addrs->vec, memTy,
                           width->bytes, hooks);
      };
      if (from.empty()) {
        Value off = offset({});
        if (failed(emitIfElse(rewriter, op, masks[r], [&] { issue(off); },
                              fill)))
          return failure();
        continue;
      }
      // The copy follows the slot's element's mask, the fill this lane's.
      Value off = offset({});
      Value pred = shuffleIdx(rewriter, loc, masks[r], from[g], ctx);
      if (failed(emitIfElse(rewriter, op, pred, [&] { issue(off); }, nullptr)) ||
          failed(emitIfElse(rewriter, op,
                            LLVM::XOrOp::create(rewriter, loc, masks[r], one),
                            fill, nullptr)))
        return failure();
    }
    rewriter.replaceOp(op, i32Const(rewriter, loc, 0));
    return success();
  }

  const AMDLoweringHooks &hooks;
};

/// The scalar base and element offsets of a buffer atomic's pointers:
/// addptr(splat(base), offsets), possibly viewed as pointers to another
/// element type of the same width (a float max/min on the bits).
std::optional<std::pair<Value, Value>> bufferOperands(Value ptrs) {
  while (auto cast = ptrs.getDefiningOp<PtrCastOp>())
    ptrs = cast.getSrc();
  auto add = ptrs.getDefiningOp<AddPtrOp>();
  if (!add)
    return std::nullopt;
  auto splat = add.getPtr().getDefiningOp<SplatOp>();
  auto offTy = dyn_cast<RankedTensorType>(add.getOffset().getType());
  if (!splat || !offTy || !offTy.getElementType().isInteger(32))
    return std::nullopt;
  return std::make_pair(splat.getSrc(), add.getOffset());
}

/// The buffer atomic intrinsic's operation for an atomic_rmw `kind` on
/// `type`, or none (those stay global atomics).
std::optional<StringRef> bufferAtomicName(StringRef kind, Type type) {
  bool isInt = type.isInteger(32) || type.isInteger(64);
  bool isFloat = type.isF32() || type.isF64();
  return llvm::StringSwitch<std::optional<StringRef>>(kind)
      .Case("add", isInt ? std::optional<StringRef>("add") : std::nullopt)
      .Case("fadd", isFloat ? std::optional<StringRef>("fadd") : std::nullopt)
      .Case("and", isInt ? std::optional<StringRef>("and") : std::nullopt)
      .Case("or", isInt ? std::optional<StringRef>("or") : std::nullopt)
      .Case("xor", isInt ? std::optional<StringRef>("xor") : std::nullopt)
      .Case("max", isInt ? std::optional<StringRef>("smax") : std::nullopt)
      .Case("min", isInt ? std::optional<StringRef>("smin") : std::nullopt)
      .Case("umax", isInt ? std::optional<StringRef>("umax") : std::nullopt)
      .Case("umin", isInt ? std::optional<StringRef>("umin") : std::nullopt)
      // (LLVM selects no f64 buffer swap.)
      .Case("xchg", isInt || type.isF32() ? std::optional<StringRef>("swap")
                                          : std::nullopt)
      .Default(std::nullopt);
}

/// A tile.atomic_rmw marked tile_amd.buffer (Gluon's buffer_atomic_*):
/// `buffer_atomic_<op>` on the resource of its scalar base, once per element
/// however many threads hold it (kiln::lowerAtomic). A lane that does not
/// act (masked, or repeating another thread's element) issues it with an
/// out-of-range offset, which the hardware drops (returning 0), instead of
/// branching around it. The memory order is fences around it at the op's
/// scope (the instruction has none). Without the base-plus-offsets form,
/// or for an operation no buffer atomic has, the global atomic's lowering
/// applies.
struct BufferAtomicRMWConversion : ConvertOpToLLVMPattern<AtomicRMWOp> {
  // Before the global atomic's pattern.
  BufferAtomicRMWConversion(TileTypeConverter &converter,
                            const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2), ctx(ctx) {}

  Type convert(Type t) const { return getTypeConverter()->convertType(t); }

  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(kBufferAtomicAttr))
      return failure();
    std::optional<std::pair<Value, Value>> operands =
        bufferOperands(op.getPtr());
    RankedTensorType type = op.getVal().getType();
    std::optional<StringRef> name =
        bufferAtomicName(op.getKind(), type.getElementType());
    Type regTy = convert(type.getElementType());
    Type structTy = convert(op.getType());
    if (!operands || !name || !regTy || !structTy)
      return failure();
    Location loc = op.getLoc();
    Value base = rewriter.getRemappedValue(operands->first);
    Value offsets = rewriter.getRemappedValue(operands->second);
    if (!base || !offsets)
      return failure();
    Value rsrc = makeResource(rewriter, loc, base);
    SmallVector<Value> offs = unpackStruct(rewriter, loc, offsets);
    SmallVector<Value> vals = unpackStruct(rewriter, loc, adaptor.getVal());
    SmallVector<Value> masks = operandRegisters(rewriter, loc, adaptor.getMask());
    unsigned elemBytes = getElementBytes(type.getElementType());
    StringRef sem = op.getSem();
    std::string intrinsic =
        ("llvm.amdgcn.raw.ptr.buffer.atomic." + *name).str();
    auto actIf = [&](unsigned r, Value pred) -> Value {
      Value off = LLVM::MulOp::create(rewriter, loc, offs[r],
                                      i32Const(rewriter, loc, elemBytes));
      if (pred)
        off = LLVM::SelectOp::create(rewriter, loc, pred, off,
                                     i32Const(rewriter, loc, kOutOfRange));
      Value zero = i32Const(rewriter, loc, 0);
      return ctx.target.atomicBetweenFences(rewriter, loc, sem, op.getScope(),
                                            [&]() -> Value {
        return LLVM::CallIntrinsicOp::create(
                   rewriter, loc, regTy, rewriter.getStringAttr(intrinsic),
                   ValueRange{vals[r], rsrc, off, zero, zero})
            .getResult(0);
      });
    };
    return lowerAtomic(
        op, type, op.getResult(), masks, regTy, rewriter, ctx,
        [](unsigned) -> Value { return {}; }, structTy, {}, actIf);
  }

  const LoweringContext &ctx;
};

} // namespace

void kiln::populateBufferOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const LoweringContext &ctx,
                                          const AMDLoweringHooks &hooks) {
  patterns.add<BufferLoadOpConversion, BufferStoreOpConversion,
               BufferAtomicRMWConversion>(converter, ctx);
  patterns.add<BufferLoadToLocalOpConversion>(converter, ctx, hooks);
}

LogicalResult kiln::checkBufferOps(ModuleOp module,
                                   const LoweringContext &ctx) {
  // Masked lanes read out of range and write zeros, or (a non-zero `other`)
  // are branched around the copy: both are lowered here.
  WalkResult r = module.walk([&](BufferLoadToLocalOp op) {
    auto dst = cast<MemDescType>(op.getDst().getType());
    return failed(checkAsyncCopyForLowering(
               op, op.getPointerType(), op.getDst(),
               bufferVectorWidth(op.getPtr(), op.getOffsets(), op.getMask(),
                                 dst.getElementType(), ctx),
               /*other=*/Value(), ctx))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}
