//===- HistogramOpToLLVM.cpp - tile.histogram ----------------------------===//
//
// The counts live in the op's shared-memory scratch, one i32 a bin. Each
// thread zeroes the bins of its result registers (every bin is some
// thread's), a barrier, then one atomic add a source element -- by the
// thread and register that own it (Ownership.cpp), where its value lies in
// [0, bins) and its mask holds -- a barrier, and each thread reads its result
// registers' bins, and a last barrier frees the scratch. The work grows with
// the elements, not with elements x bins.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct HistogramOpConversion : public TileOpConversion<HistogramOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(HistogramOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcTy = op.getSrc().getType();
    auto dstTy = op.getResult().getType();
    int64_t bins = dstTy.getDimSize(0);
    if (!op->hasAttr(TileDialect::ScratchOffsetAttrHelper::getNameStr()))
      return op.emitOpError() << "needs shared memory but has none assigned; "
                                 "run tile-allocate-shared-memory first";
    if (!inControlFlowGraph(op))
      return op.emitOpError() << "must be lowered in a function's "
                                 "control-flow graph (its atomics are behind "
                                 "branches)";
    FailureOr<Ownership> own = planOwnership(op, srcTy);
    if (failed(own))
      return failure();
    FailureOr<LinearLayout> dstLL =
        getLinearLayout(dstTy, [&] { return op.emitOpError(); });
    if (failed(dstLL))
      return failure();

    Type i32 = rewriter.getI32Type();
    auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    Value base = getScratchBase(rewriter, loc, op);
    auto binPtr = [&](Value index) {
      return LLVM::GEPOp::create(rewriter, loc, ptrTy, i32, base,
                                 ValueRange{index});
    };

    // 1. Zero the bins of this thread's result registers.
    SmallVector<SmallVector<Value>> dstCoords =
        emitCoordinates(rewriter, loc, *dstLL, ctx);
    ctx.target.barrier(rewriter, loc); // the scratch's last user is done
    Value zero = i32Const(rewriter, loc, 0);
    for (const SmallVector<Value> &c : dstCoords)
      LLVM::StoreOp::create(rewriter, loc, zero, binPtr(c[0]));
    ctx.target.barrier(rewriter, loc);

    // 2. One atomic add per source element.
    SmallVector<Value> values = unpackStruct(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackStruct(rewriter, loc, adaptor.getMask());
    Value owner = ownerPredicate(rewriter, loc, *own, ctx);
    Type valTy = values.front().getType();
    Value limit = LLVM::ConstantOp::create(
        rewriter, loc, valTy, rewriter.getIntegerAttr(valTy, bins));
    Value one = i32Const(rewriter, loc, 1);
    for (auto [r, v] : llvm::enumerate(values)) {
      if (own->canonical[r] != r)
        continue; // another register of this thread holds the element
      // Unsigned: a negative value is out of range too.
      Value cond = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult,
                                        v, limit);
      if (!masks.empty())
        cond = LLVM::AndOp::create(rewriter, loc, cond, masks[r]);
      if (owner)
        cond = LLVM::AndOp::create(rewriter, loc, cond, owner);
      Value index = v;
      if (valTy != i32)
        index = LLVM::TruncOp::create(rewriter, loc, i32, v);
      if (failed(emitIfElse(
              rewriter, op, cond,
              [&] {
                LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::add,
                                          binPtr(index), one,
                                          LLVM::AtomicOrdering::monotonic);
              },
              nullptr)))
        return failure();
    }
    ctx.target.barrier(rewriter, loc);

    // 3. Each thread reads its result registers' bins.
    SmallVector<Value> counts;
    for (const SmallVector<Value> &c : dstCoords)
      counts.push_back(LLVM::LoadOp::create(rewriter, loc, i32, binPtr(c[0])));
    ctx.target.barrier(rewriter, loc); // the scratch is free again
    rewriter.replaceOp(op, packStruct(rewriter, loc, convert(dstTy), counts));
    return success();
  }
};

} // namespace

void kiln::populateHistogramOpToLLVMPatterns(TileTypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             const LoweringContext &ctx) {
  patterns.add<HistogramOpConversion>(converter, ctx);
}
