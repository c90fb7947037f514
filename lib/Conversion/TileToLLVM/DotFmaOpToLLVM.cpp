//===- DotFmaOpToLLVM.cpp - tile.dot_fma as per-thread multiply-adds ------===//
//
// The operand layouts (#tile.dot_operand) give every thread the whole K
// extent of the rows and columns of its accumulator registers, and the same
// lane and warp offsets along M (A) and N (B) as the accumulator. So the
// product is thread-local: for each accumulator register, the A registers
// whose register-only coordinates are (its M, k) and the B registers at
// (k, its N), for every k, chained through fused multiply-adds.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

using Coord = SmallVector<int32_t>;

struct DotFmaOpConversion : public TileOpConversion<DotFmaOp> {
  using TileOpConversion::TileOpConversion;
  LogicalResult
  matchAndRewrite(DotFmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType aTy = op.getA().getType(), bTy = op.getB().getType(),
                     cTy = op.getC().getType();
    LinearLayout aLL = *getLinearLayout(aTy), bLL = *getLinearLayout(bTy),
                 cLL = *getLinearLayout(cTy);
    unsigned rank = cTy.getRank();
    int64_t K = aTy.getShape()[rank - 1];
    auto aRegs = unpackStruct(rewriter, loc, adaptor.getA());
    auto bRegs = unpackStruct(rewriter, loc, adaptor.getB());
    auto cRegs = unpackStruct(rewriter, loc, adaptor.getC());
    auto aBy = registersByCoordinate(aLL), bBy = registersByCoordinate(bLL);
    Type accTy = getTypeConverter()->convertType(cTy.getElementType());
    bool isFloat = isa<FloatType>(cTy.getElementType());
    auto extend = [&](Value v) -> Value {
      if (v.getType() == accTy)
        return v;
      if (isFloat)
        return LLVM::FPExtOp::create(rewriter, loc, accTy, v);
      return LLVM::SExtOp::create(rewriter, loc, accTy, v);
    };
    // Each operand register is extended once, where first used.
    DenseMap<unsigned, Value> aExt, bExt;
    auto get = [&](DenseMap<unsigned, Value> &cache, ArrayRef<Value> regs,
                   unsigned r) {
      auto [it, inserted] = cache.try_emplace(r, Value());
      if (inserted)
        it->second = extend(regs[r]);
      return it->second;
    };
    SmallVector<Value> out;
    for (auto [r, acc] : llvm::enumerate(cRegs)) {
      auto c = cLL.applyOne(LinearLayout::Register, r);
      Value sum = acc;
      for (int64_t k = 0; k < K; ++k) {
        Coord ac(c.begin(), c.end()), bc(c.begin(), c.end());
        ac[rank - 1] = k;
        bc[rank - 2] = k;
        auto ai = aBy.find(ac), bi = bBy.find(bc);
        if (ai == aBy.end() || bi == bBy.end())
          return op.emitOpError()
                 << "internal: an operand register is missing for (register "
                 << r << ", k " << k << ")";
        Value x = get(aExt, aRegs, ai->second);
        Value y = get(bExt, bRegs, bi->second);
        if (isFloat) {
          sum = LLVM::FMAOp::create(rewriter, loc, x, y, sum);
        } else {
          Value p = LLVM::MulOp::create(rewriter, loc, x, y);
          sum = LLVM::AddOp::create(rewriter, loc, sum, p);
        }
      }
      out.push_back(sum);
    }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc, getTypeConverter()->convertType(cTy), out));
    return success();
  }
};

} // namespace

void kiln::populateDotFmaOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const LoweringContext &ctx) {
  patterns.add<DotFmaOpConversion>(converter, ctx);
}
