//===- MMAv2OpToLLVM.cpp - mma.sync to NVVM ------------------------------===//
//
// tile_nv.mma_v2 becomes a grid of mma.sync instructions (m16n8k16 for
// 16-bit operands, m16n8k8 for tf32, m16n8k32 for i8). The layouts are checked on their
// F2-linear forms, not by name: the lanes of a, b and the accumulator must
// be the instruction's (an 8-row x 4-lane grid, pairs along N for the
// accumulator; the 4 lanes of a row may move along K by any steps, the same
// for a and b), and K is consumed in the order lane 0 holds it: a thread's
// i-th K value (per row) fills fragment slot i of the instruction steps in
// both operands, so a k_width that permutes K inside an instruction
// (DotOperandLayout k_width 8) multiplies the same pairs as k_width 2;
// a warp bit must move a and the accumulator by the same rows and b and the
// accumulator by the same columns (and never along K), and then each
// instruction's registers are found by their coordinates among the
// thread's registers: every 16 x 8 block of the accumulator the thread's
// registers start, times every 16-deep step of K.
//
//===----------------------------------------------------------------------===//

#include "MMAFragments.h"
#include "NVIDIALowering.h"

#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

namespace {

/// The registers of each instruction: `d[t]` the 4 accumulator registers of
/// accumulator tile t, `a[t][s]` / `b[t][s]` the operand registers of its K
/// step s (in PTX fragment order: 4 / 2 for tf32, 8 / 4 for 16-bit, 16 / 8
/// for i8; packed 2 or 4 to a word by the caller).
struct MMAv2Plan {
  int64_t instrK = 16;
  SmallVector<std::array<int64_t, 4>> d;
  SmallVector<SmallVector<std::array<int64_t, 16>>> a;
  SmallVector<SmallVector<std::array<int64_t, 8>>> b;
};

FailureOr<MMAv2Plan> planMMAv2(MMAv2Op op) {
  RankedTensorType aTy = op.getA().getType(), bTy = op.getB().getType(),
                   cTy = op.getC().getType();
  auto emit = [&] { return op.emitOpError(); };
  FailureOr<LinearLayout> la = getLinearLayout(aTy, emit),
                          lb = getLinearLayout(bTy, emit),
                          lc = getLinearLayout(cTy, emit);
  if (failed(la) || failed(lb) || failed(lc))
    return failure();
  auto fail = [&](StringRef what, const Twine &why) {
    op.emitOpError() << what << "'s layout is not the mma.sync one: " << why
                     << " (use NVMMADistributedLayout(version=[2, 0], ...) for "
                        "the accumulator and DotOperandLayout(0 or 1, it, "
                        "k_width) with one k_width for a and b)";
    return failure();
  };
  // Lanes, as (row, col) of each tensor. The operands' first two lane bits
  // move along K, the same way in a and b (a k_width other than 2 moves by
  // more than the instruction's pairs; the K order below absorbs it).
  const LinearLayout::Basis accLanes[] = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  ArrayRef<LinearLayout::Basis> aL = la->getBases(LinearLayout::Lane);
  ArrayRef<LinearLayout::Basis> bL = lb->getBases(LinearLayout::Lane);
  if (aL.size() != 5 || bL.size() != 5)
    return fail(aL.size() != 5 ? "a" : "b", "it is not for 32-lane warps");
  const LinearLayout::Basis aLanes[] = {{0, aL[0][1]}, {0, aL[1][1]}, {1, 0}, {2, 0}, {4, 0}};
  const LinearLayout::Basis bLanes[] = {{aL[0][1], 0}, {aL[1][1], 0}, {0, 1}, {0, 2}, {0, 4}};
  if (!aL[0][1] || !aL[1][1])
    return fail("a", "lane bits 0 and 1 must move along K");
  for (auto [what, ll, want] :
       {std::tuple<StringRef, const LinearLayout *, const LinearLayout::Basis *>{
            "the accumulator", &*lc, accLanes},
        {"a", &*la, aLanes},
        {"b", &*lb, bLanes}}) {
    ArrayRef<LinearLayout::Basis> lanes = ll->getBases(LinearLayout::Lane);
    if (lanes.size() != 5)
      return fail(what, "it is not for 32-lane warps");
    for (unsigned i = 0; i < 5; ++i)
      if (lanes[i] != want[i])
        return fail(what, "lane bit " + Twine(i) + " moves by " +
                              basisText(lanes[i]) + ", the instruction's by " +
                              basisText(want[i]));
  }
  ArrayRef<LinearLayout::Basis> wa = la->getBases(LinearLayout::Warp),
                                wb = lb->getBases(LinearLayout::Warp),
                                wc = lc->getBases(LinearLayout::Warp);
  if (wa.size() != wc.size() || wb.size() != wc.size())
    return fail("a", "its warps are not the accumulator's");
  for (unsigned i = 0; i < wc.size(); ++i) {
    if (wa[i][1] || wb[i][0])
      return fail(wa[i][1] ? "a" : "b",
                  "warp bit " + Twine(i) +
                      " moves along K; each warp must hold all of K");
    if (wa[i][0] != wc[i][0] || wb[i][1] != wc[i][1])
      return fail(wa[i][0] != wc[i][0] ? "a" : "b",
                  "warp bit " + Twine(i) + " moves the operands by [" +
                      Twine(wa[i][0]) + " rows, " + Twine(wb[i][1]) +
                      " columns] but the accumulator by " + basisText(wc[i]));
  }
  FailureOr<DenseMap<Coord, int64_t>> ra = registersByCoord(*la),
                                      rb = registersByCoord(*lb),
                                      rc = registersByCoord(*lc);
  if (failed(rc))
    return fail("the accumulator", "two registers hold the same element");
  if (failed(ra) || failed(rb))
    return fail(failed(ra) ? "a" : "b", "two registers hold the same element");
  auto find = [&](const DenseMap<Coord, int64_t> &regs, StringRef what,
                  int32_t r, int32_t c) -> FailureOr<int64_t> {
    auto it = regs.find({r, c});
    if (it == regs.end()) {
      (void)fail(what, "no register holds row " + Twine(r) + ", column " + Twine(c) +
                     " of the thread's part");
      return failure();
    }
    return it->second;
  };
  int64_t k = aTy.getShape()[1];
  // K per instruction: 16 for 16-bit operands (pairs), 8 for tf32, 32 for
  // i8 (quads).
  bool tf32 = aTy.getElementType().isF32();
  bool int8 = aTy.getElementType().isInteger(8);
  // K values a lane holds per instruction step
  int64_t slots = tf32 ? 2 : int8 ? 8 : 4;
  MMAv2Plan plan;
  plan.instrK = tf32 ? 8 : int8 ? 32 : 16;
  // Accumulator tiles in register order, so the output follows the input.
  SmallVector<std::pair<Coord, int64_t>> origins;
  for (auto &[coord, reg] : *rc)
    if (coord.first % 16 == 0 && coord.second % 8 == 0)
      origins.push_back({coord, reg});
  llvm::sort(origins, [](auto &x, auto &y) { return x.second < y.second; });
  for (auto &[origin, reg] : origins) {
    auto [r0, c0] = origin;
    std::array<int64_t, 4> d;
    const Coord dAt[4] = {{r0, c0}, {r0, c0 + 1}, {r0 + 8, c0}, {r0 + 8, c0 + 1}};
    for (int i = 0; i < 4; ++i) {
      FailureOr<int64_t> x = find(*rc, "the accumulator", dAt[i].first, dAt[i].second);
      if (failed(x))
        return failure();
      d[i] = *x;
    }
    plan.d.push_back(d);
    // The K values lane 0 holds in row r0 of a, in order: value i fills
    // fragment slot i % slots of step i / slots, in a and in b alike.
    SmallVector<int32_t> ks;
    for (auto &[coord, areg] : *ra)
      if (coord.first == r0)
        ks.push_back(coord.second);
    llvm::sort(ks);
    if (int64_t(ks.size()) * (k / int64_t(ks.size()) ) != k ||
        int64_t(ks.size()) % slots || int64_t(ks.size()) * 4 != k)
      return fail("a", "lane 0 holds " + Twine(ks.size()) + " of the " +
                           Twine(k) + " K values of a row, not a quarter");
    auto &as = plan.a.emplace_back();
    auto &bs = plan.b.emplace_back();
    for (size_t s0 = 0; s0 < ks.size(); s0 += slots) {
      // PTX fragment order. 16-bit: a0..a7 = (r, k0) (r, k1) (r+8, k0)
      // (r+8, k1) (r, k2) (r, k3) (r+8, k2) (r+8, k3), b0..b3 = k0..k3;
      // tf32: a0..a3 = (r, k0) (r+8, k0) (r, k1) (r+8, k1), b0, b1 = k0, k1;
      // i8: a0..a15 = (r, k0..k3) (r+8, k0..k3) (r, k4..k7) (r+8, k4..k7),
      // b0..b7 = k0..k7.
      std::array<int64_t, 16> av{};
      std::array<int64_t, 8> bv{};
      SmallVector<Coord, 16> aAt;
      if (tf32)
        aAt = {{r0, ks[s0]}, {r0 + 8, ks[s0]}, {r0, ks[s0 + 1]}, {r0 + 8, ks[s0 + 1]}};
      else if (int8)
        aAt = aFragment8(r0, ArrayRef(ks).slice(s0, 8));
      else
        aAt = {{r0, ks[s0]},         {r0, ks[s0 + 1]},     {r0 + 8, ks[s0]},
               {r0 + 8, ks[s0 + 1]}, {r0, ks[s0 + 2]},     {r0, ks[s0 + 3]},
               {r0 + 8, ks[s0 + 2]}, {r0 + 8, ks[s0 + 3]}};
      for (size_t i = 0; i < aAt.size(); ++i) {
        FailureOr<int64_t> x = find(*ra, "a", aAt[i].first, aAt[i].second);
        if (failed(x))
          return failure();
        av[i] = *x;
      }
      for (int64_t i = 0; i < slots; ++i) {
        FailureOr<int64_t> x = find(*rb, "b", ks[s0 + i], c0);
        if (failed(x))
          return failure();
        bv[i] = *x;
      }
      as.push_back(av);
      bs.push_back(bv);
    }
  }
  if (int64_t(plan.d.size()) * 4 != int64_t(rc->size()))
    return fail("the accumulator", "its registers are not whole 16 x 8 blocks");
  return plan;
}

struct MMAv2Conversion : TileOpConversion<MMAv2Op> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(MMAv2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<MMAv2Plan> plan = planMMAv2(op);
    if (failed(plan))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *mctx = rewriter.getContext();
    SmallVector<Value> aRegs = getRegisters(rewriter, loc, adaptor.getA());
    SmallVector<Value> bRegs = getRegisters(rewriter, loc, adaptor.getB());
    SmallVector<Value> out = getRegisters(rewriter, loc, adaptor.getC());
    Type elem = op.getA().getType().getElementType();
    bool bf16 = elem.isBF16(), tf32 = elem.isF32(), int8 = elem.isInteger(8);
    bool f16Acc = op.getC().getType().getElementType().isF16();
    auto pack = [&](ArrayRef<Value> regs, int64_t x, int64_t y) {
      // f16x2 as a vector, bf16x2 as i32 (the operand types of the NVVM op).
      return packPair(rewriter, loc, regs[x], regs[y], bf16);
    };
    auto asI32 = [&](Value v) { // a tf32 operand: the f32's bits
      return LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), v);
    };
    Type f32 = rewriter.getF32Type();
    Type half2 = VectorType::get({2}, rewriter.getF16Type());
    Type i32 = rewriter.getI32Type();
    auto structTy =
        f16Acc ? LLVM::LLVMStructType::getLiteral(mctx, {half2, half2})
        : int8 ? LLVM::LLVMStructType::getLiteral(mctx, {i32, i32, i32, i32})
               : LLVM::LLVMStructType::getLiteral(mctx, {f32, f32, f32, f32});
    NVVM::MMATypes ptx = tf32   ? NVVM::MMATypes::tf32
                         : bf16 ? NVVM::MMATypes::bf16
                         : int8 ? NVVM::MMATypes::s8
                                : NVVM::MMATypes::f16;
    // Integer products saturate at the int32 range, as Gluon's do.
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (int8)
      overflow = NVVM::MMAIntOverflow::satfinite;
    int32_t instrK = plan->instrK;
    for (size_t t = 0; t < plan->d.size(); ++t) {
      const std::array<int64_t, 4> &d = plan->d[t];
      SmallVector<Value> acc = {out[d[0]], out[d[1]], out[d[2]], out[d[3]]};
      if (f16Acc) // (r, c), (r, c + 1) and (r + 8, ...) as two f16 pairs
        acc = {packPair(rewriter, loc, acc[0], acc[1], false),
               packPair(rewriter, loc, acc[2], acc[3], false)};
      for (size_t s = 0; s < plan->a[t].size(); ++s) {
        const std::array<int64_t, 16> &a = plan->a[t][s];
        const std::array<int64_t, 8> &b = plan->b[t][s];
        SmallVector<Value> opA, opB;
        if (int8) {
          for (int i = 0; i < 4; ++i)
            opA.push_back(packQuad(rewriter, loc, aRegs, ArrayRef(a).slice(4 * i, 4)));
          opB = {packQuad(rewriter, loc, bRegs, ArrayRef(b).slice(0, 4)),
                 packQuad(rewriter, loc, bRegs, ArrayRef(b).slice(4, 4))};
        } else if (tf32) {
          for (int i = 0; i < 4; ++i)
            opA.push_back(asI32(aRegs[a[i]]));
          opB = {asI32(bRegs[b[0]]), asI32(bRegs[b[1]])};
        } else {
          opA = {pack(aRegs, a[0], a[1]), pack(aRegs, a[2], a[3]),
                 pack(aRegs, a[4], a[5]), pack(aRegs, a[6], a[7])};
          opB = {pack(bRegs, b[0], b[1]), pack(bRegs, b[2], b[3])};
        }
        Value res = NVVM::MmaOp::create(
            rewriter, loc, structTy, opA, opB, acc, {16, 8, instrK},
            /*b1Op=*/std::nullopt, /*intOverflow=*/overflow,
            std::array<NVVM::MMATypes, 2>{ptx, ptx},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        acc = unpackStruct(rewriter, loc, res);
      }
      if (f16Acc) {
        SmallVector<Value> halves;
        for (Value pair : acc)
          for (int i = 0; i < 2; ++i)
            halves.push_back(LLVM::ExtractElementOp::create(
                rewriter, loc, pair, i32Const(rewriter, loc, i)));
        acc = halves;
      }
      for (int i = 0; i < 4; ++i)
        out[d[i]] = acc[i];
    }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       getTypeConverter()->convertType(op.getType()), out));
    return success();
  }
};

} // namespace

LogicalResult kiln::checkMMAv2Layouts(MMAv2Op op) {
  return failure(failed(planMMAv2(op)));
}

void kiln::populateMMAv2OpToLLVMPatterns(TileTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         const LoweringContext &ctx) {
  patterns.add<MMAv2Conversion>(converter, ctx);
}
