//===- GatherOpToLLVM.cpp - tile.gather -----------------------------------===//
//
// Within each warp, a gather is shuffles. The source layout is inverted over
// F2 (GatherLayout.h): every coordinate bit of the source tensor maps to the
// register, lane and warp bits that hold it. For an output register, the
// source coordinates are the output's with the axis coordinate replaced by
// the index; their register and lane follow by XOR of the inverted bits, and
// the value comes from that lane by an index shuffle of each register it may
// be in (the candidates are the registers the output's static bits and the
// runtime bits can reach), selected by the register index.
//
// Where an output thread may need an element another warp holds, the source
// goes through the op's shared-memory scratch instead: the thread acting
// for each element stores it at its row-major slot, a barrier, and each
// output register loads the slot of its source coordinates (the index
// wrapped to the axis, whose length is a power of two).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "kiln/Dialect/Tile/IR/GatherLayout.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "llvm/Support/MathExtras.h"
#include <set>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

struct GatherOpConversion : public TileOpConversion<GatherOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcTy = op.getSrc().getType(), idxTy = op.getIndices().getType();
    unsigned axis = op.getAxis();
    FailureOr<GatherLayouts> g =
        analyzeGather(op, [&] { return op.emitOpError(); });
    if (failed(g))
      return failure();
    if (!g->warpLocal)
      return lowerThroughSharedMemory(op, adaptor, rewriter);
    const LinearLayout *idxLL = &g->idx;
    const CoordBits &bits = g->bits;
    const SmallVector<uint64_t> *inverse = &g->inverse;
    auto nonAxis = [&](ArrayRef<int32_t> c) {
      SmallVector<int32_t> k(c.begin(), c.end());
      k[axis] = 0;
      return bits.pack(k);
    };
    auto regOf = [](uint64_t in) { return in & 0xffffffffu; };
    auto apply = [](ArrayRef<uint64_t> inv, uint64_t c) {
      return applyInverse(inv, c);
    };
    // Register bits the runtime can move: the axis bits and the output's
    // lane and warp bits (XOR-closed span).
    std::set<uint64_t> span = {0};
    auto addToSpan = [&](uint64_t r) {
      std::set<uint64_t> more(span);
      for (uint64_t s : span)
        more.insert(s ^ r);
      span.swap(more);
    };
    for (unsigned k = 0; k < bits.width[axis]; ++k)
      addToSpan(regOf((*inverse)[bits.offset[axis] + k]));
    for (auto dim : {LinearLayout::Lane, LinearLayout::Warp})
      for (const auto &b : idxLL->getBases(dim))
        addToSpan(regOf(apply(*inverse, nonAxis(b))));

    SmallVector<Value> src = unpackStruct(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> idx = unpackStruct(rewriter, loc, adaptor.getIndices());
    auto coords = emitCoordinates(rewriter, loc, *idxLL, ctx);
    Type i32 = rewriter.getI32Type();
    auto c32 = [&](int64_t v) { return i32Const(rewriter, loc, v); };
    SmallVector<Value> out;
    for (unsigned r = 0; r < idx.size(); ++r) {
      Value index = idx[r];
      unsigned w = index.getType().getIntOrFloatBitWidth();
      if (w > 32)
        index = LLVM::TruncOp::create(rewriter, loc, i32, index);
      else if (w < 32)
        index = LLVM::ZExtOp::create(rewriter, loc, i32, index);
      // Register and lane of the source element, by XOR over the set bits
      // of its coordinates (the index clipped to the axis).
      Value reg = c32(0), lane = c32(0);
      for (unsigned d = 0; d < srcTy.getRank(); ++d) {
        Value c = d == axis ? index : coords[r][d];
        for (unsigned k = 0; k < bits.width[d]; ++k) {
          uint64_t in = (*inverse)[bits.offset[d] + k];
          int64_t rBits = regOf(in), lBits = (in >> 32) & 0xffff;
          if (!rBits && !lBits)
            continue;
          Value bit = LLVM::AndOp::create(
              rewriter, loc, LLVM::LShrOp::create(rewriter, loc, c, c32(k)),
              c32(1));
          Value set = LLVM::ICmpOp::create(rewriter, loc,
                                           LLVM::ICmpPredicate::ne, bit, c32(0));
          if (rBits)
            reg = LLVM::XOrOp::create(
                rewriter, loc, reg,
                LLVM::SelectOp::create(rewriter, loc, set, c32(rBits), c32(0)));
          if (lBits)
            lane = LLVM::XOrOp::create(
                rewriter, loc, lane,
                LLVM::SelectOp::create(rewriter, loc, set, c32(lBits), c32(0)));
        }
      }
      // The static part of the register: this output register's own bits.
      auto oc = idxLL->applyOne(LinearLayout::Register, r);
      uint64_t base = regOf(apply(*inverse, nonAxis(oc)));
      Value value;
      for (uint64_t s : span) {
        uint64_t cand = base ^ s;
        if (cand >= src.size())
          continue;
        Value got = shuffleIdx(rewriter, loc, src[cand], lane, ctx);
        if (!value) {
          value = got;
          continue;
        }
        Value is = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                        reg, c32(cand));
        value = LLVM::SelectOp::create(rewriter, loc, is, got, value);
      }
      out.push_back(value);
    }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       getTypeConverter()->convertType(op.getType()), out));
    return success();
  }

  LogicalResult
  lowerThroughSharedMemory(GatherOp op, OpAdaptor adaptor,
                           ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto srcTy = op.getSrc().getType(), idxTy = op.getIndices().getType();
    unsigned axis = op.getAxis();
    if (!op->hasAttr(TileDialect::ScratchOffsetAttrHelper::getNameStr()))
      return op.emitOpError()
             << "gathers across warps through shared memory but has none "
                "assigned; run tile-allocate-shared-memory first";
    if (!inControlFlowGraph(op))
      return op.emitOpError()
             << "is lowered with branches, so it must be in a function's "
                "control-flow graph: run convert-scf-to-cf first (kiln-to-llvm "
                "does)";
    FailureOr<Ownership> own = planOwnership(op, srcTy);
    FailureOr<LinearLayout> srcLL = getLinearLayout(srcTy),
                            idxLL = getLinearLayout(idxTy);
    if (failed(own) || failed(srcLL) || failed(idxLL))
      return failure();
    Type regTy = getTypeConverter()->convertType(srcTy.getElementType());
    Type memTy = getMemoryType(regTy);
    auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    SmallVector<int32_t> sizes(srcTy.getShape().begin(), srcTy.getShape().end());
    Value base = getScratchBase(rewriter, loc, op);
    auto slot = [&](ArrayRef<Value> coords) {
      return LLVM::GEPOp::create(
          rewriter, loc, ptrTy, memTy, base,
          ValueRange{emitLinearIndex(rewriter, loc, coords, sizes)});
    };
    SmallVector<Value> src = unpackStruct(rewriter, loc, adaptor.getSrc());
    SmallVector<Value> idx = unpackStruct(rewriter, loc, adaptor.getIndices());
    auto srcCoords = emitCoordinates(rewriter, loc, *srcLL, ctx);
    SmallVector<Value> slots;
    for (auto [r, c] : llvm::enumerate(srcCoords))
      slots.push_back(own->canonical[r] == r ? slot(c) : Value());
    // Earlier readers of these bytes are done before the source is written;
    // of the threads holding an element, one writes it.
    ctx.target.barrier(rewriter, loc);
    auto storeAll = [&] {
      for (auto [r, v] : llvm::enumerate(src))
        if (slots[r])
          LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, v),
                                slots[r]);
    };
    if (Value owner = ownerPredicate(rewriter, loc, *own, ctx))
      emitIf(rewriter, loc, owner, storeAll);
    else
      storeAll();
    ctx.target.barrier(rewriter, loc);
    auto outCoords = emitCoordinates(rewriter, loc, *idxLL, ctx);
    Type i32 = rewriter.getI32Type();
    Value wrap = i32Const(rewriter, loc, srcTy.getDimSize(axis) - 1);
    SmallVector<Value> out;
    for (auto [r, index] : llvm::enumerate(idx)) {
      unsigned w = index.getType().getIntOrFloatBitWidth();
      if (w > 32)
        index = LLVM::TruncOp::create(rewriter, loc, i32, index);
      else if (w < 32)
        index = LLVM::ZExtOp::create(rewriter, loc, i32, index);
      SmallVector<Value> c(outCoords[r]);
      c[axis] = LLVM::AndOp::create(rewriter, loc, index, wrap);
      out.push_back(fromMemory(
          rewriter, loc, LLVM::LoadOp::create(rewriter, loc, memTy, slot(c)),
          regTy));
    }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       getTypeConverter()->convertType(op.getType()), out));
    return success();
  }
};

} // namespace

void kiln::populateGatherOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const LoweringContext &ctx) {
  patterns.add<GatherOpConversion>(converter, ctx);
}
