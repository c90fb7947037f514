//===- MFMAScaledOpToLLVM.cpp - tile_amd.mfma_scaled to ROCDL ------------===//
//
// tile_amd.mfma_scaled becomes a grid of CDNA4 v_mfma_scale_f32_*_f8f6f4
// instructions. Each lane of an M x N x K instruction (16x16x128 or
// 32x32x64) holds 32 K values of one row of A (one column of B) and one
// E8M0 scale; the 64 / M lane groups split K:
//  * e2m1 (two values a byte): lane group g holds bytes [16 g, 16 g + 16)
//    of the instruction's K, 32 consecutive values;
//  * e4m3 / e5m2 (a value a byte): lane group g holds K [16 g, 16 g + 16)
//    and the same 16 half the instruction's K further on;
//  * the scale of row i's K block q (K [32 q, 32 q + 32) in the order
//    above) sits in lane i + M q.
// A kWidth 16 dot_op layout has exactly those lanes (its K tile is 16
// bytes a lane group). Triton's Gluon lowering hands the instruction a
// lane's consecutive registers whatever the kWidth, so a kWidth 32 layout
// of one-byte formats (lane group g: K [32 g, 32 g + 32)) is read in a K
// order of its own. A dot product does not care in which order K is
// summed as long as a and b share it, so both must be kWidth 32; but each
// hardware block q then takes 16 values from each of two lane groups that
// hold different 32-value blocks, so the product is right only when every
// block of a row has the same scale: the scales must be constants. The
// layouts are checked on their F2-linear forms and each instruction's
// registers found by coordinate, as for mfma (MFMAOpToLLVM.cpp, which also
// checks the accumulator).
//
//===----------------------------------------------------------------------===//

#include "../TargetInfo/AMDLowering.h"
#include "MFMAAccumulator.h"

#include "kiln/Dialect/TileAMD/IR/Dialect.h"
#include "kiln/Dialect/TileAMD/IR/MFMA.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Matchers.h"

#include <map>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_amd;
using mfma::basisText;
using mfma::Coord;

namespace {

/// Whether every element of `v` is one value: a splat constant or a splat
/// of a scalar.
bool isUniform(Value v) {
  DenseElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr.isSplat();
  return v.getDefiningOp<SplatOp>() != nullptr;
}

/// Per accumulator block t and K step s: the operand bytes (in the
/// instruction's slot order) and the scale registers.
struct ScaledPlan {
  const MfmaScaledInstr *instr = nullptr;
  bool transposed = false;
  unsigned fmtA = 0, fmtB = 0;
  SmallVector<SmallVector<int64_t>> d;
  SmallVector<SmallVector<SmallVector<int64_t>>> a, b;
  SmallVector<SmallVector<int64_t>> aScale, bScale;
};

FailureOr<ScaledPlan> planMfmaScaled(MfmaScaledOp op) {
  RankedTensorType aTy = op.getA().getType(), bTy = op.getB().getType(),
                   cTy = op.getC().getType(),
                   asTy = op.getAScale().getType(),
                   bsTy = op.getBScale().getType();
  auto acc = cast<MfmaEncodingAttr>(cTy.getEncoding());
  ArrayRef<unsigned> shape = acc.getInstrShape();
  ScaledPlan plan;
  plan.instr = lookupMfmaScaled(acc.getVersion(), shape[0], shape[1], shape[2]);
  if (!plan.instr)
    return op.emitOpError() << "no scaled mfma instruction for this layout";
  plan.transposed = acc.getTransposed();
  plan.fmtA = *getMfmaScaledFormat(op.getAFormat());
  plan.fmtB = *getMfmaScaledFormat(op.getBFormat());
  const MfmaScaledInstr &in = *plan.instr;
  auto emit = [&] { return op.emitOpError(); };
  FailureOr<LinearLayout> la = getLinearLayout(aTy, emit),
                          lb = getLinearLayout(bTy, emit),
                          lc = getLinearLayout(cTy, emit),
                          lsa = getLinearLayout(asTy, emit),
                          lsb = getLinearLayout(bsTy, emit);
  if (failed(la) || failed(lb) || failed(lc) || failed(lsa) || failed(lsb))
    return failure();
  auto fail = [&](StringRef what, const Twine &why) {
    op.emitOpError() << what << "'s layout is not the scaled mfma one: " << why
                     << " (use AMDMFMALayout(4, ...) for the accumulator, "
                        "DotOperandLayout(0 or 1, it, 16 or 32) for a and b "
                        "and get_mfma_scale_layout for their scales)";
    return failure();
  };
  int32_t m = in.m, n = in.n;
  FailureOr<SmallVector<mfma::AccBlock>> blocks = mfma::planAccumulator(
      *lc, cTy.getShape(), m, n, plan.transposed, fail);
  if (failed(blocks))
    return failure();
  ArrayRef<LinearLayout::Basis> wc = lc->getBases(LinearLayout::Warp);

  // One operand or scale: its lanes, its warps (moving as the accumulator's
  // `accDim`), registers that hold distinct elements.
  // A tensor smaller than the instruction along M or N (`extent` rows or
  // columns): the lanes past it repeat its elements (the step is zero) and
  // the instruction computes those rows or columns again.
  auto check = [&](StringRef what, const LinearLayout &ll, unsigned mnDim,
                   int32_t mn, int32_t kStep, unsigned accDim, int64_t extent,
                   std::map<Coord, unsigned> &regs) -> LogicalResult {
    ArrayRef<LinearLayout::Basis> lanes = ll.getBases(LinearLayout::Lane);
    if (lanes.size() != 6)
      return fail(what, "it is not for 64-lane waves");
    unsigned mnBits = llvm::Log2_32(mn), kDim = 1 - mnDim;
    for (unsigned i = 0; i < 6; ++i) {
      Coord want = {0, 0};
      if (i < mnBits)
        want[mnDim] = (int64_t(1) << i) < extent ? 1 << i : 0;
      else
        want[kDim] = kStep << (i - mnBits);
      if (Coord(lanes[i].begin(), lanes[i].end()) != want)
        return fail(what, "lane bit " + Twine(i) + " moves by " +
                              basisText(lanes[i]) + ", the instruction's by " +
                              basisText(want));
    }
    ArrayRef<LinearLayout::Basis> warps = ll.getBases(LinearLayout::Warp);
    if (warps.size() != wc.size())
      return fail(what, "its warps are not the accumulator's");
    for (unsigned i = 0; i < wc.size(); ++i) {
      Coord want = {0, 0};
      want[mnDim] = wc[i][accDim];
      if (Coord(warps[i].begin(), warps[i].end()) != want)
        return fail(what, "warp bit " + Twine(i) + " moves it by " +
                              basisText(warps[i]) + ", the accumulator by " +
                              basisText(wc[i]) + "; it must move by " +
                              basisText(want));
    }
    regs = registersByCoordinate(ll);
    if (int64_t(regs.size()) != ll.getInSize(LinearLayout::Register))
      return fail(what, "two registers hold the same element");
    return success();
  };
  // The verifier allows kWidth 16, or 32 on both one-byte operands; a lane
  // group's K step is its kWidth either way.
  int32_t kwA = cast<DotOperandEncodingAttr>(aTy.getEncoding()).getKWidth(),
          kwB = cast<DotOperandEncodingAttr>(bTy.getEncoding()).getKWidth();
  if (kwA == 32 || kwB == 32)
    for (auto [what, v] :
         {std::pair<StringRef, Value>{"a_scale", op.getAScale()},
          {"b_scale", op.getBScale()}})
      if (!isUniform(v)) {
        op.emitOpError()
            << "with kWidth 32 operands " << what
            << " must be one constant E8M0 byte (None or an int in the DSL): "
               "the instruction scales 16 K values from each of two lane "
               "groups together, which a kWidth 32 layout fills from two "
               "different 32-value blocks; use kWidth 16 for per-block scales";
        return failure();
      }
  std::map<Coord, unsigned> ra, rb, rsa, rsb;
  int64_t mExtent = aTy.getShape()[0], nExtent = bTy.getShape()[1];
  if (failed(check("a", *la, 0, m, kwA, 0, mExtent, ra)) ||
      failed(check("b", *lb, 1, n, kwB, 1, nExtent, rb)) ||
      failed(check("a_scale", *lsa, 0, m, 1, 0, mExtent, rsa)) ||
      failed(check("b_scale", *lsb, 0, n, 1, 1, nExtent, rsb)))
    return failure();

  auto find = [&](const std::map<Coord, unsigned> &regs, StringRef what,
                  int32_t r, int32_t c) -> FailureOr<int64_t> {
    auto it = regs.find(Coord{r, c});
    if (it == regs.end()) {
      (void)fail(what, "no register holds row " + Twine(r) + ", column " +
                           Twine(c) + " of the thread's part");
      return failure();
    }
    return int64_t(it->second);
  };
  // Bytes of a lane per instruction and the K offset (in the tensor's
  // elements) of its slot j from the lane group's start: consecutive for
  // e2m1 and for kWidth 32, two runs of 16 half the instruction's K apart
  // for one-byte formats at kWidth 16.
  unsigned packA = getMfmaScaledPacking(op.getAFormat()),
           packB = getMfmaScaledPacking(op.getBFormat());
  auto slot = [&](unsigned pack, int32_t kWidth, unsigned j) -> int32_t {
    if (pack == 2 || kWidth == 32 || j < 16)
      return j;
    return in.k / 2 + (j - 16);
  };
  int64_t kSteps = aTy.getShape()[1] * packA / in.k;
  int32_t blocksPerStep = in.k / 32;
  for (mfma::AccBlock &block : *blocks) {
    plan.d.push_back(block.d);
    auto &as = plan.a.emplace_back();
    auto &bs = plan.b.emplace_back();
    auto &sa = plan.aScale.emplace_back();
    auto &sb = plan.bScale.emplace_back();
    for (int64_t s = 0; s < kSteps; ++s) {
      SmallVector<int64_t> av, bv;
      for (unsigned j = 0; j < 32 / packA; ++j) {
        FailureOr<int64_t> x =
            find(ra, "a", block.r0, s * (in.k / packA) + slot(packA, kwA, j));
        if (failed(x))
          return failure();
        av.push_back(*x);
      }
      for (unsigned j = 0; j < 32 / packB; ++j) {
        FailureOr<int64_t> y =
            find(rb, "b", s * (in.k / packB) + slot(packB, kwB, j), block.c0);
        if (failed(y))
          return failure();
        bv.push_back(*y);
      }
      FailureOr<int64_t> x = find(rsa, "a_scale", block.r0, s * blocksPerStep);
      FailureOr<int64_t> y = find(rsb, "b_scale", block.c0, s * blocksPerStep);
      if (failed(x) || failed(y))
        return failure();
      as.push_back(av);
      bs.push_back(bv);
      sa.push_back(*x);
      sb.push_back(*y);
    }
  }
  return plan;
}

/// A lane's bytes as the vector of i32 the intrinsic takes (4 for e2m1, 8
/// for the 8-bit formats); slot j is byte j.
Value packBytes(OpBuilder &b, Location loc, ArrayRef<Value> regs,
                ArrayRef<int64_t> idx) {
  Type i8 = b.getI8Type();
  Value v = LLVM::PoisonOp::create(
      b, loc, VectorType::get({int64_t(idx.size())}, i8));
  for (auto [j, r] : llvm::enumerate(idx)) {
    Value x = regs[r];
    if (x.getType() != i8)
      x = LLVM::BitcastOp::create(b, loc, i8, x);
    v = LLVM::InsertElementOp::create(b, loc, v, x, i32Const(b, loc, j));
  }
  return LLVM::BitcastOp::create(
      b, loc, VectorType::get({int64_t(idx.size() / 4)}, b.getI32Type()), v);
}

struct MfmaScaledConversion : TileOpConversion<MfmaScaledOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(MfmaScaledOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<ScaledPlan> plan = planMfmaScaled(op);
    if (failed(plan))
      return failure();
    const MfmaScaledInstr &in = *plan->instr;
    Location loc = op.getLoc();
    SmallVector<Value> aRegs = getRegisters(rewriter, loc, adaptor.getA());
    SmallVector<Value> bRegs = getRegisters(rewriter, loc, adaptor.getB());
    SmallVector<Value> saRegs = getRegisters(rewriter, loc, adaptor.getAScale());
    SmallVector<Value> sbRegs = getRegisters(rewriter, loc, adaptor.getBScale());
    SmallVector<Value> out = getRegisters(rewriter, loc, adaptor.getC());
    auto accTy = VectorType::get({int64_t(in.m * in.n / 64)}, rewriter.getF32Type());
    Value opsel = i32Const(rewriter, loc, 0); // the scale is the low byte
    Value fmtA = i32Const(rewriter, loc, plan->fmtA);
    Value fmtB = i32Const(rewriter, loc, plan->fmtB);
    auto scale = [&](Value byte) {
      return LLVM::ZExtOp::create(rewriter, loc, rewriter.getI32Type(), byte);
    };
    // K steps outermost: each step's operands are used by every output tile
    // before the next step's are needed, so with the operands' shared-memory
    // reads at their first use (Serialize) only one step's are live (a
    // 256x256 fp8 block of 8 warps holds 128 accumulator registers and 192
    // of operands a thread: all at once do not fit in 256).
    SmallVector<Value> accs;
    size_t steps = 0;
    for (size_t t = 0; t < plan->d.size(); ++t) {
      Value acc = LLVM::PoisonOp::create(rewriter, loc, accTy);
      for (auto [i, r] : llvm::enumerate(plan->d[t]))
        acc = LLVM::InsertElementOp::create(rewriter, loc, acc, out[r],
                                            i32Const(rewriter, loc, i));
      accs.push_back(acc);
      steps = std::max(steps, plan->a[t].size());
    }
    for (size_t s = 0; s < steps; ++s) {
      for (size_t t = 0; t < plan->d.size(); ++t) {
        if (s >= plan->a[t].size())
          continue;
        Value x = packBytes(rewriter, loc, aRegs, plan->a[t][s]);
        Value y = packBytes(rewriter, loc, bRegs, plan->b[t][s]);
        Value sx = scale(saRegs[plan->aScale[t][s]]);
        Value sy = scale(sbRegs[plan->bScale[t][s]]);
        Value fx = fmtA, fy = fmtB;
        // Transposed: C^T = B^T A^T, so b is the instruction's A operand,
        // with its format and scales.
        if (plan->transposed) {
          std::swap(x, y);
          std::swap(sx, sy);
          std::swap(fx, fy);
        }
        OperationState state(loc, ("rocdl." + in.name).str());
        state.addOperands({x, y, accs[t], fx, fy, opsel, sx, opsel, sy});
        state.addTypes(accTy);
        accs[t] = rewriter.create(state)->getResult(0);
      }
    }
    for (size_t t = 0; t < plan->d.size(); ++t)
      for (auto [i, r] : llvm::enumerate(plan->d[t]))
        out[r] = LLVM::ExtractElementOp::create(rewriter, loc, accs[t],
                                                i32Const(rewriter, loc, i));
    rewriter.replaceOp(op, packStruct(rewriter, loc, convert(op.getType()), out));
    return success();
  }
};

} // namespace

LogicalResult kiln::checkMfmaScaledLayouts(ModuleOp module) {
  WalkResult r = module.walk([](MfmaScaledOp op) {
    return failed(planMfmaScaled(op)) ? WalkResult::interrupt()
                                      : WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

void kiln::populateMfmaScaledOpToLLVMPatterns(TileTypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              const LoweringContext &ctx) {
  patterns.add<MfmaScaledConversion>(converter, ctx);
}
