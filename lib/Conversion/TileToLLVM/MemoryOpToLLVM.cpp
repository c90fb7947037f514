//===- MemoryOpToLLVM.cpp - addptr, load and store ------------------------===//
//
// Global loads and stores are issued as vectors of up to the target's widest
// access. The width is the largest power of two that (1) the layout keeps in
// consecutive registers along one dimension, (2) the pointers are contiguous
// and aligned for, and (3) the mask is constant over. A masked access is predicated
// by the group's (uniform) mask through the target's loadGlobal/storeGlobal
// hooks; `other` is the value where the mask is false. A volatile load is
// an LLVM volatile load (behind a branch where masked); a store is issued
// once per element, by the thread that owns it (Ownership.cpp).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "kiln/Analysis/VectorWidth.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

unsigned kiln::getGlobalVectorWidth(Value ptr, Value mask,
                                   const LoweringContext &ctx) {
  return getPointerVectorWidth(ptr, mask, ctx.axisInfo,
                               ctx.target.getDesc().maxVectorBytes);
}

unsigned kiln::getVectorWidth(RankedTensorType ty, int64_t bytes,
                              ArrayRef<int64_t> contiguity,
                              ArrayRef<int64_t> byteDivisibility, Value mask,
                              const LoweringContext &ctx) {
  return getAccessVectorWidth(ty, bytes, contiguity, byteDivisibility, mask,
                              ctx.axisInfo,
                              ctx.target.getDesc().maxVectorBytes);
}

namespace {

struct AddPtrOpConversion : public ConvertOpToLLVMPattern<AddPtrOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptrTy = cast<PointerType>(getElementTypeOrSelf(op.getPtr().getType()));
    Type elem = getMemoryType(getTypeConverter()->convertType(ptrTy.getPointeeType()));
    Type llPtr = getTypeConverter()->convertType(ptrTy);
    SmallVector<Value> ptrs = getRegisters(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> offs = getRegisters(rewriter, loc, adaptor.getOffset());
    SmallVector<Value> out;
    for (auto [p, o] : llvm::zip(ptrs, offs))
      out.push_back(LLVM::GEPOp::create(rewriter, loc, llPtr, elem, p,
                                        ValueRange{o}));
    if (!isa<RankedTensorType>(op.getType()))
      rewriter.replaceOp(op, out[0]);
    else
      rewriter.replaceOp(
          op, packStruct(rewriter, loc,
                         getTypeConverter()->convertType(op.getType()), out));
    return success();
  }
};

struct LoadOpConversion : public ConvertOpToLLVMPattern<LoadOp> {
  LoadOpConversion(const LLVMTypeConverter &tc, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(tc), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structTy = getTypeConverter()->convertType(op.getType());
    Type regTy = getTypeConverter()->convertType(op.getType().getElementType());
    Type memTy = getMemoryType(regTy);
    unsigned bytes = getElementBytes(op.getType().getElementType());
    unsigned vec = getGlobalVectorWidth(op.getPtr(), op.getMask(), ctx);
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks, others;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    if (adaptor.getOther())
      others = unpackStruct(rewriter, loc, adaptor.getOther());
    Type vecTy = VectorType::get({int64_t(vec)}, memTy);
    SmallVector<Value> out;
    for (unsigned g = 0; g < ptrs.size(); g += vec) {
      Value pred, fallback;
      if (!masks.empty()) {
        pred = masks[g];
        fallback = LLVM::ZeroOp::create(rewriter, loc, vecTy);
        for (unsigned i = 0; !others.empty() && i < vec; ++i)
          fallback = LLVM::InsertElementOp::create(
              rewriter, loc, fallback, toMemory(rewriter, loc, others[g + i]),
              i32Const(rewriter, loc, i));
      }
      Value v;
      if (op.getIsVolatile()) {
        auto access = [&] {
          return LLVM::LoadOp::create(rewriter, loc, vecTy, ptrs[g],
                                      vec * bytes, /*isVolatile=*/true)
              .getResult();
        };
        if (!pred) {
          v = access();
        } else {
          if (!inControlFlowGraph(op))
            return op.emitOpError()
                   << "a masked volatile load is lowered with a branch, so "
                      "it must be in a function's control-flow graph: run "
                      "convert-scf-to-cf first (kiln-to-llvm does)";
          v = emitIfValue(rewriter, loc, pred, vecTy, access);
          v = LLVM::SelectOp::create(rewriter, loc, pred, v, fallback);
        }
      } else {
        v = ctx.target.loadGlobal(rewriter, loc, ptrs[g], vecTy, vec * bytes,
                                  pred, fallback);
      }
      for (unsigned i = 0; i < vec; ++i) {
        Value e = LLVM::ExtractElementOp::create(rewriter, loc, v,
                                                 i32Const(rewriter, loc, i));
        out.push_back(fromMemory(rewriter, loc, e, regTy));
      }
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, structTy, out));
    return success();
  }

  const LoweringContext &ctx;
};

struct StoreOpConversion : public ConvertOpToLLVMPattern<StoreOp> {
  StoreOpConversion(const LLVMTypeConverter &tc, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(tc), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto valTy = cast<RankedTensorType>(op.getValue().getType());
    Type regTy = getTypeConverter()->convertType(valTy.getElementType());
    Type memTy = getMemoryType(regTy);
    unsigned bytes = getElementBytes(valTy.getElementType());
    unsigned vec = getGlobalVectorWidth(op.getPtr(), op.getMask(), ctx);
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> vals = unpackStruct(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    Type vecTy = VectorType::get({int64_t(vec)}, memTy);
    // Each element is stored once, by the thread and register that own it
    // (as Gluon does): others holding a copy would race with it.
    FailureOr<Ownership> own = planOwnership(op, valTy);
    if (failed(own))
      return failure();
    Value owner = ownerPredicate(rewriter, loc, *own, ctx);
    for (unsigned g = 0; g < ptrs.size(); g += vec) {
      if (own->canonical[g] != g)
        continue;
      Value pred = masks.empty() ? Value() : masks[g];
      if (owner)
        pred = pred ? LLVM::AndOp::create(rewriter, loc, pred, owner) : owner;
      Value v = LLVM::UndefOp::create(rewriter, loc, vecTy);
      for (unsigned i = 0; i < vec; ++i)
        v = LLVM::InsertElementOp::create(rewriter, loc, v,
                                          toMemory(rewriter, loc, vals[g + i]),
                                          i32Const(rewriter, loc, i));
      ctx.target.storeGlobal(rewriter, loc, ptrs[g], v, vec * bytes, pred);
    }
    rewriter.eraseOp(op);
    return success();
  }

  const LoweringContext &ctx;
};

} // namespace

void kiln::populateMemoryOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const LoweringContext &ctx) {
  patterns.add<AddPtrOpConversion>(converter);
  patterns.add<LoadOpConversion, StoreOpConversion>(converter, ctx);
}
