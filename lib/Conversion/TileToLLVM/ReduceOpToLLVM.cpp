//===- ReduceOpToLLVM.cpp - tile.reduce -----------------------------------===//
//
// A reduction runs in three steps, each skipped when the layout needs none:
// combine the registers of a thread that share every other coordinate,
// combine across lanes with butterfly shuffles, and combine across warps
// through shared memory. The combine region is cloned at each step.
//
// A scan runs within each thread: its layout keeps the whole axis in every
// thread's registers (the frontend converts to such a layout and back), and
// each thread combines its registers in axis order.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/IR/IRMapping.h"
#include <map>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// The combine region's body cloned at the insertion point for `a` and `b`;
/// its result (the terminator's operand).
Value cloneCombine(OpBuilder &b, Region &region, Value lhs, Value rhs) {
  Block &body = region.front();
  IRMapping map;
  map.map(body.getArgument(0), lhs);
  map.map(body.getArgument(1), rhs);
  for (Operation &o : body.without_terminator())
    b.clone(o, map);
  return map.lookupOrDefault(body.back().getOperand(0));
}

struct ReduceOpConversion : public ConvertOpToLLVMPattern<ReduceOp> {
  ReduceOpConversion(const LLVMTypeConverter &tc, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(tc), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcTy = op.getSrc().getType();
    unsigned axis = op.getAxis();
    LinearLayout ll = *getLinearLayout(srcTy);
    FailureOr<unsigned> warpBits = getReduceWarpBits(ll, axis);
    if (failed(warpBits))
      return op.emitOpError()
             << "layout " << srcTy.getEncoding()
             << " mixes the reduction axis with other dimensions in a lane or "
                "warp basis; convert the operand to a blocked layout first";

    auto combine = [&](Value a, Value b) {
      return cloneCombine(rewriter, op.getCombine(), a, b);
    };
    auto dropAxis = [&](const LinearLayout::Basis &c) {
      SmallVector<int32_t> k(c.begin(), c.end());
      k.erase(k.begin() + axis);
      return k;
    };

    // 1. Inside the thread.
    SmallVector<Value> regs = unpackStruct(rewriter, loc, adaptor.getSrc());
    std::map<SmallVector<int32_t>, unsigned> groupOf;
    SmallVector<Value> acc;
    SmallVector<unsigned> firstReg;
    for (auto [r, v] : llvm::enumerate(regs)) {
      auto key = dropAxis(ll.applyOne(LinearLayout::Register, r));
      auto it = groupOf.find(key);
      if (it == groupOf.end()) {
        groupOf[key] = acc.size();
        acc.push_back(v);
        firstReg.push_back(r);
      } else {
        acc[it->second] = combine(acc[it->second], v);
      }
    }

    // 2. Across lanes.
    ThreadIds ids = getThreadIds(rewriter, loc, ctx);
    for (auto [bit, basis] : llvm::enumerate(ll.getBases(LinearLayout::Lane))) {
      if (basis[axis] == 0)
        continue;
      for (Value &a : acc)
        a = combine(a, shuffleXor(rewriter, loc, a, 1u << bit, ids.lane, ctx));
    }

    // 3. Across warps.
    if (*warpBits > 0) {
      if (!op->hasAttr(TileDialect::ScratchOffsetAttrHelper::getNameStr()))
        return op.emitOpError() << "needs shared memory but has none "
                                   "assigned; run tile-allocate-shared-memory "
                                   "first";
      Type regTy = getTypeConverter()->convertType(srcTy.getElementType());
      Type memTy = getMemoryType(regTy);
      auto ptrTy = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
      SmallVector<int32_t> outSizes(ll.getOutSizes());
      outSizes.erase(outSizes.begin() + axis);
      int64_t numOut = 1;
      for (int32_t s : outSizes)
        numOut *= s;
      // Index of this warp among the warps that split the axis.
      Value warpAxis = i32Const(rewriter, loc, 0);
      unsigned k = 0;
      for (auto [bit, basis] :
           llvm::enumerate(ll.getBases(LinearLayout::Warp))) {
        if (basis[axis] == 0)
          continue;
        Value set = LLVM::AndOp::create(
            rewriter, loc,
            LLVM::LShrOp::create(rewriter, loc, ids.warp,
                                 i32Const(rewriter, loc, bit)),
            i32Const(rewriter, loc, 1));
        warpAxis =
            LLVM::OrOp::create(rewriter, loc, warpAxis,
                               LLVM::ShlOp::create(rewriter, loc, set,
                                                   i32Const(rewriter, loc, k)));
        ++k;
      }
      auto coords = emitCoordinates(rewriter, loc, ll, ctx);
      Value base = getScratchBase(rewriter, loc, op);
      ctx.target.barrier(rewriter, loc);
      SmallVector<Value> outIdx;
      for (auto [g, a] : llvm::enumerate(acc)) {
        SmallVector<Value> c(coords[firstReg[g]]);
        c.erase(c.begin() + axis);
        Value lin = emitLinearIndex(rewriter, loc, c, outSizes);
        outIdx.push_back(lin);
        Value idx = LLVM::AddOp::create(
            rewriter, loc,
            LLVM::MulOp::create(rewriter, loc, warpAxis,
                                i32Const(rewriter, loc, numOut)),
            lin);
        Value p = LLVM::GEPOp::create(rewriter, loc, ptrTy, memTy, base,
                                      ValueRange{idx});
        LLVM::StoreOp::create(rewriter, loc, toMemory(rewriter, loc, a), p);
      }
      ctx.target.barrier(rewriter, loc);
      for (auto [g, a] : llvm::enumerate(acc)) {
        for (int64_t w = 0; w < (int64_t(1) << *warpBits); ++w) {
          Value idx = LLVM::AddOp::create(rewriter, loc, outIdx[g],
                                          i32Const(rewriter, loc, w * numOut));
          Value p = LLVM::GEPOp::create(rewriter, loc, ptrTy, memTy, base,
                                        ValueRange{idx});
          Value v =
              fromMemory(rewriter, loc,
                         LLVM::LoadOp::create(rewriter, loc, memTy, p), regTy);
          a = w == 0 ? v : combine(a, v);
        }
      }
    }

    // 4. Registers of the result layout.
    if (srcTy.getRank() == 1) {
      rewriter.replaceOp(op, acc.front());
      return success();
    }
    auto dstTy = cast<RankedTensorType>(op.getType());
    LinearLayout dstLL = *getLinearLayout(dstTy);
    SmallVector<Value> out;
    for (int32_t r = 0; r < dstLL.getInSize(LinearLayout::Register); ++r) {
      auto c = dstLL.applyOne(LinearLayout::Register, r);
      auto it = groupOf.find(SmallVector<int32_t>(c.begin(), c.end()));
      if (it == groupOf.end())
        return op.emitOpError() << "result layout " << dstTy.getEncoding()
                                << " does not match the reduced registers";
      out.push_back(acc[it->second]);
    }
    rewriter.replaceOp(
        op,
        packStruct(rewriter, loc, getTypeConverter()->convertType(dstTy), out));
    return success();
  }

  const LoweringContext &ctx;
};

struct ScanOpConversion : public ConvertOpToLLVMPattern<ScanOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getSrc().getType();
    unsigned axis = op.getAxis();
    FailureOr<LinearLayout> ll =
        getLinearLayout(type, [&] { return op.emitOpError(); });
    if (failed(ll))
      return failure();
    for (auto dim : {LinearLayout::Lane, LinearLayout::Warp})
      for (const LinearLayout::Basis &b : ll->getBases(dim))
        if (b[axis] != 0)
          return op.emitOpError()
                 << "layout " << type.getEncoding() << " spreads axis " << axis
                 << " over " << (dim == LinearLayout::Lane ? "lanes" : "warps")
                 << "; a scan needs the whole axis in each thread's registers";
    auto combine = [&](Value a, Value b) {
      return cloneCombine(rewriter, op.getCombine(), a, b);
    };
    // Registers by their other coordinates, then by position along the axis
    // (a register that repeats another's element gets the same result).
    SmallVector<Value> regs = unpackStruct(rewriter, loc, adaptor.getSrc());
    std::map<SmallVector<int32_t>, std::map<int32_t, SmallVector<unsigned>>>
        lines;
    for (unsigned r = 0; r < regs.size(); ++r) {
      auto c = ll->applyOne(LinearLayout::Register, r);
      SmallVector<int32_t> key(c.begin(), c.end());
      int32_t pos = key[axis];
      key.erase(key.begin() + axis);
      lines[key][pos].push_back(r);
    }
    SmallVector<Value> out(regs);
    for (auto &[key, line] : lines) {
      Value acc;
      auto step = [&](const SmallVector<unsigned> &rs) {
        acc = acc ? combine(acc, regs[rs.front()]) : regs[rs.front()];
        for (unsigned r : rs)
          out[r] = acc;
      };
      if (op.getReverse())
        for (auto it = line.rbegin(); it != line.rend(); ++it)
          step(it->second);
      else
        for (auto &[pos, rs] : line)
          step(rs);
    }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc, getTypeConverter()->convertType(type), out));
    return success();
  }
};

} // namespace

void kiln::populateReduceOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const LoweringContext &ctx) {
  patterns.add<ReduceOpConversion>(converter, ctx);
  patterns.add<ScanOpConversion>(converter);
}
