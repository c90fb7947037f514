//===- GatherOpToLLVM.cpp - tile.gather -----------------------------------===//
//
// A gather within each warp. The source layout is inverted over F2: every
// coordinate bit of the source tensor maps to the register, lane and warp
// bits that hold it. For an output register, the source coordinates are the
// output's with the axis coordinate replaced by the index; their register
// and lane follow by XOR of the inverted bits, and the value comes from that
// lane by an index shuffle of each register it may be in (the candidates are
// the registers the output's static bits and the runtime bits can reach),
// selected by the register index. The warp must be the output thread's own:
// checked on the layouts before anything is emitted.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "kiln/Dialect/Tile/IR/Utility.h"

#include "llvm/Support/MathExtras.h"
#include <set>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

/// Coordinates as one bit vector: dimension d's bits at offset[d].
struct CoordBits {
  SmallVector<unsigned> offset, width;
  unsigned total = 0;
  explicit CoordBits(ArrayRef<int64_t> shape) {
    for (int64_t e : shape) {
      offset.push_back(total);
      width.push_back(llvm::Log2_64(e));
      total += width.back();
    }
  }
  uint64_t pack(ArrayRef<int32_t> c) const {
    uint64_t v = 0;
    for (unsigned d = 0; d < c.size(); ++d)
      v |= uint64_t(c[d]) << offset[d];
    return v;
  }
};

/// The inverse of `ll` on coordinate bits: for each coordinate bit, the
/// (register, lane, warp) bits of one place that holds it, packed as
/// reg | lane << 32 | warp << 48; fails when the layout misses a coordinate.
FailureOr<SmallVector<uint64_t>> invert(const LinearLayout &ll,
                                        const CoordBits &bits) {
  // Gaussian elimination over F2: rows (coordinate vector, input bits).
  SmallVector<std::pair<uint64_t, uint64_t>> rows;
  unsigned shifts[] = {0, 32, 48};
  for (auto dim : {LinearLayout::Register, LinearLayout::Lane,
                   LinearLayout::Warp})
    for (auto [i, b] : llvm::enumerate(ll.getBases(dim)))
      rows.push_back({bits.pack(b), uint64_t(1) << (shifts[dim] + i)});
  SmallVector<uint64_t> out(bits.total, 0);
  // Reduced rows: each row's lowest bit is its pivot, which no other row has.
  SmallVector<std::pair<uint64_t, uint64_t>> pivots;
  for (auto row : rows) {
    for (auto &[v, in] : pivots)
      if (row.first & (v & -v))
        row.first ^= v, row.second ^= in;
    if (!row.first)
      continue;
    uint64_t low = row.first & -row.first;
    for (auto &[v, in] : pivots)
      if (v & low)
        v ^= row.first, in ^= row.second;
    pivots.push_back(row);
  }
  for (auto &[v, in] : pivots) {
    if (v & (v - 1))
      return failure(); // not reduced to one coordinate bit: not full rank
    out[llvm::countr_zero(v)] = in;
  }
  for (unsigned k = 0; k < bits.total; ++k)
    if (!llvm::any_of(pivots, [&](auto &p) { return p.first == (uint64_t(1) << k); }))
      return failure();
  return out;
}

uint64_t apply(ArrayRef<uint64_t> inverse, uint64_t coord) {
  uint64_t in = 0;
  for (unsigned k = 0; k < inverse.size(); ++k)
    if (coord >> k & 1)
      in ^= inverse[k];
  return in;
}

struct GatherOpConversion : public TileOpConversion<GatherOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcTy = op.getSrc().getType(), idxTy = op.getIndices().getType();
    unsigned axis = op.getAxis();
    auto emit = [&] { return op.emitOpError(); };
    FailureOr<LinearLayout> srcLL = getLinearLayout(srcTy, emit),
                            idxLL = getLinearLayout(idxTy, emit);
    if (failed(srcLL) || failed(idxLL))
      return failure();
    CoordBits bits(srcTy.getShape());
    FailureOr<SmallVector<uint64_t>> inverse = invert(*srcLL, bits);
    if (failed(inverse))
      return op.emitOpError() << "the source layout " << srcTy.getEncoding()
                              << " does not hold every element";
    auto nonAxis = [&](ArrayRef<int32_t> c) {
      SmallVector<int32_t> k(c.begin(), c.end());
      k[axis] = 0;
      // Past the source's extent (indices longer along other dims cannot
      // happen: the verifier ties them) nothing to clip.
      return bits.pack(k);
    };
    auto warpOf = [](uint64_t in) { return in >> 48; };
    auto regOf = [](uint64_t in) { return in & 0xffffffffu; };
    auto notLocal = [&] {
      return op.emitOpError()
             << "gathers across warps: an element a thread of "
             << idxTy.getEncoding() << " needs lives in another warp of "
             << srcTy.getEncoding()
             << " (a warp-local gather needs the axis within each warp and "
                "the warps to split the other dimensions alike)";
    };
    // The axis bits must stay in the warp, and the other coordinates of an
    // output must select its own warp of the source, up to the source's
    // warp bits that move nowhere (every such warp holds the element).
    uint64_t anyWarp = 0;
    for (auto [i, b] : llvm::enumerate(srcLL->getBases(LinearLayout::Warp)))
      if (llvm::all_of(b, [](int32_t v) { return v == 0; }))
        anyWarp |= uint64_t(1) << i;
    auto sameWarp = [&](uint64_t a, uint64_t b) {
      return (a & ~anyWarp) == (b & ~anyWarp);
    };
    for (unsigned k = 0; k < bits.width[axis]; ++k)
      if (!sameWarp(warpOf((*inverse)[bits.offset[axis] + k]), 0))
        return notLocal();
    for (auto dim : {LinearLayout::Register, LinearLayout::Lane})
      for (const auto &b : idxLL->getBases(dim))
        if (!sameWarp(warpOf(apply(*inverse, nonAxis(b))), 0))
          return notLocal();
    for (auto [i, b] : llvm::enumerate(idxLL->getBases(LinearLayout::Warp)))
      if (!sameWarp(warpOf(apply(*inverse, nonAxis(b))), uint64_t(1) << i))
        return notLocal();
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

};

} // namespace

void kiln::populateGatherOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const LoweringContext &ctx) {
  patterns.add<GatherOpConversion>(converter, ctx);
}
