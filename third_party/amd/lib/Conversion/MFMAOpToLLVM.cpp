//===- MFMAOpToLLVM.cpp - tile_amd.mfma to ROCDL -------------------------===//
//
// tile_amd.mfma becomes a grid of v_mfma instructions (MFMA.h's table). The
// layouts are checked on their F2-linear forms, not by name, as the
// mma.sync lowering does:
//  * the accumulator's lanes are the instruction's: the first log2(N) lane
//    bits along N, the rest 4, 8, ... rows down (f64: 1, 2, ...; transposed: M and N
//    swapped, which the lowering gets by swapping the operands);
//  * a's first log2(M) lane bits along M and b's first log2(N) along N; the
//    rest move both along K, by the same steps;
//  * a warp bit moves a and the accumulator by the same rows, b and the
//    accumulator by the same columns, and never along K.
// K is consumed in the order lane 0 holds it: the thread's j-th K value of
// a row fills slot j % kBase of instruction step j / kBase, in a and b
// alike, so any k_width (several instructions' K in one thread, as Triton's
// k_width 8 on gfx942) multiplies the right pairs. Each instruction's
// registers are then found by their coordinates among the thread's: every
// M x N block of the accumulator the thread's registers start, times every
// K step.
//
//===----------------------------------------------------------------------===//

#include "../TargetInfo/AMDLowering.h"
#include "MFMAAccumulator.h"

#include "kiln/Dialect/TileAMD/IR/Dialect.h"
#include "kiln/Dialect/TileAMD/IR/MFMA.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

#include <map>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_amd;

namespace {

using mfma::basisText;
using mfma::Coord;

/// The registers of each instruction: `d[t]` the accumulator registers of
/// block t (in the instruction's register order), `a[t][s]` / `b[t][s]` the
/// kBase operand registers of its K step s (in slot order).
/// A batched product repeats it for each batch index a thread holds: the
/// registers of batch repeat r are those of the first repeat plus r times
/// `chunkA` / `chunkB` / `chunkC`.
struct MfmaPlan {
  const MfmaInstr *instr = nullptr;
  bool transposed = false;
  SmallVector<SmallVector<int64_t>> d;
  SmallVector<SmallVector<SmallVector<int64_t>>> a, b;
  /// The 4x4 instructions: per block and K step, the lane group (ABID) whose
  /// 4-wide operand every block takes (CBSZ 4); empty for the others.
  SmallVector<SmallVector<int32_t>> abid;
  int64_t repeats = 1, chunkA = 0, chunkB = 0, chunkC = 0;
  /// Lane bits along which the operands' K tile repeats K (K shorter than
  /// the tile): the lanes with any of them set hold K values other lanes
  /// already feed, and feed zeros instead (both operands: 0 x 0 adds
  /// nothing, whatever the other values are).
  int32_t duplicateLanes = 0;
};

/// A batched (3-D) layout seen one batch index at a time: its 2-D layout
/// (the batch components dropped) and the registers that move along the
/// batch dimension, which must be the last ones. Null where the layout
/// mixes the batch dimension with M, N or K.
std::optional<LinearLayout> dropBatch(const LinearLayout &l,
                                      LinearLayout::Bases &batchRegs,
                                      LinearLayout::Bases &batchWarps) {
  std::array<LinearLayout::Bases, LinearLayout::kNumInDims> bases;
  auto rest = [](const LinearLayout::Basis &b) {
    return LinearLayout::Basis{b[1], b[2]};
  };
  for (const LinearLayout::Basis &b : l.getBases(LinearLayout::Register)) {
    if (b[0] && (b[1] || b[2]))
      return std::nullopt;
    if (b[0])
      batchRegs.push_back(b);
    else if (!batchRegs.empty())
      return std::nullopt; // a batch register before an M, N or K one
    else
      bases[LinearLayout::Register].push_back(rest(b));
  }
  for (const LinearLayout::Basis &b : l.getBases(LinearLayout::Lane)) {
    if (b[0])
      return std::nullopt;
    bases[LinearLayout::Lane].push_back(rest(b));
  }
  for (const LinearLayout::Basis &b : l.getBases(LinearLayout::Warp)) {
    if (b[0] && (b[1] || b[2]))
      return std::nullopt;
    batchWarps.push_back({b[0]});
    bases[LinearLayout::Warp].push_back(rest(b));
  }
  ArrayRef<int32_t> sizes = l.getOutSizes();
  return LinearLayout(bases, {sizes[1], sizes[2]});
}

FailureOr<MfmaPlan> planMfma2D(MfmaOp op, const LinearLayout &la2,
                               const LinearLayout &lb2, const LinearLayout &lc2);

FailureOr<MfmaPlan> planMfma(MfmaOp op) {
  RankedTensorType aTy = op.getA().getType(), bTy = op.getB().getType(),
                   cTy = op.getC().getType();
  auto emit = [&] { return op.emitOpError(); };
  FailureOr<LinearLayout> la = getLinearLayout(aTy, emit),
                          lb = getLinearLayout(bTy, emit),
                          lc = getLinearLayout(cTy, emit);
  if (failed(la) || failed(lb) || failed(lc))
    return failure();
  if (cTy.getRank() == 2)
    return planMfma2D(op, *la, *lb, *lc);
  // Batched: each operand's layout must place the batch dimension the same
  // way (warps along it in step, then register repeats of it, last).
  LinearLayout::Bases regs[3], warps[3];
  std::optional<LinearLayout> sliced[3] = {dropBatch(*la, regs[0], warps[0]),
                                           dropBatch(*lb, regs[1], warps[1]),
                                           dropBatch(*lc, regs[2], warps[2])};
  for (unsigned i = 0; i < 3; ++i)
    if (!sliced[i] || regs[i] != regs[2] || warps[i] != warps[2])
      return op.emitOpError()
             << (i == 0 ? "a" : i == 1 ? "b" : "the accumulator")
             << "'s layout does not place the batch dimension as the "
                "accumulator's: warps along it in step, then register repeats "
                "of it (use AMDMFMALayout with 3 warps_per_cta entries and "
                "DotOperandLayout over it)";
  FailureOr<MfmaPlan> plan = planMfma2D(op, *sliced[0], *sliced[1], *sliced[2]);
  if (failed(plan))
    return failure();
  plan->repeats = int64_t(1) << regs[2].size();
  plan->chunkA = sliced[0]->getInSize(LinearLayout::Register);
  plan->chunkB = sliced[1]->getInSize(LinearLayout::Register);
  plan->chunkC = sliced[2]->getInSize(LinearLayout::Register);
  return plan;
}

/// The K steps of a 4x4 instruction's product (4 x 64; 64 x 4 transposed):
/// X, the operand whose 4-wide side the 16 blocks share (a, or b when
/// transposed), holds K / 16 values a lane, the lane groups (lane bits 2-5,
/// `xLaneK`) the rest; Y holds all of K. Each step takes kBase of X's
/// registers from lane group g (ABID g, CBSZ 4: every block reads group g's)
/// and Y's registers of the same K values, in every lane.
template <typename FindFn, typename FailFn>
FailureOr<MfmaPlan> planBroadcastSteps(MfmaPlan &plan,
                                       ArrayRef<mfma::AccBlock> blocks,
                                       const std::map<Coord, unsigned> &ra,
                                       const std::map<Coord, unsigned> &rb,
                                       ArrayRef<int32_t> xLaneK, int64_t k, FindFn find,
                                       FailFn fail) {
  const MfmaInstr &in = *plan.instr;
  bool xIsA = !plan.transposed;
  const std::map<Coord, unsigned> &rx = xIsA ? ra : rb, &ry = xIsA ? rb : ra;
  StringRef xName = xIsA ? "a" : "b", yName = xIsA ? "b" : "a";
  if (xLaneK.size() != 4)
    return fail(xName, "its lanes do not hold 4 rows of 16 K groups");
  for (const mfma::AccBlock &block : blocks) {
    int32_t short0 = xIsA ? block.r0 : block.c0, long0 = xIsA ? block.c0 : block.r0;
    plan.d.push_back(block.d);
    SmallVector<int32_t> ks;
    for (auto &[coord, reg] : rx)
      if (coord[xIsA ? 0 : 1] == short0)
        ks.push_back(coord[xIsA ? 1 : 0]);
    llvm::sort(ks);
    llvm::DenseSet<int32_t> covered;
    auto offset = [&](int32_t g) {
      int32_t off = 0;
      for (unsigned bit = 0; bit < xLaneK.size(); ++bit)
        if (g >> bit & 1)
          off ^= xLaneK[bit];
      return off;
    };
    for (int32_t g = 0; g < 16; ++g)
      for (int32_t kv : ks)
        covered.insert(kv ^ offset(g));
    if (int64_t(covered.size()) != k || int64_t(ks.size()) * 16 != k ||
        ks.size() % in.kBase)
      return fail(xName, "its lanes and registers do not hold each of the " +
                             Twine(k) + " K values once in steps of " +
                             Twine(in.kBase));
    auto &as = plan.a.emplace_back();
    auto &bs = plan.b.emplace_back();
    auto &ids = plan.abid.emplace_back();
    for (size_t c = 0; c < ks.size(); c += in.kBase)
      for (int32_t g = 0; g < 16; ++g) {
        SmallVector<int64_t> xv, yv;
        for (unsigned j = 0; j < in.kBase; ++j) {
          int32_t kx = ks[c + j], ky = kx ^ offset(g);
          FailureOr<int64_t> x = xIsA ? find(rx, xName, short0, kx)
                                      : find(rx, xName, kx, short0);
          FailureOr<int64_t> y = xIsA ? find(ry, yName, ky, long0)
                                      : find(ry, yName, long0, ky);
          if (failed(x) || failed(y))
            return failure();
          xv.push_back(*x);
          yv.push_back(*y);
        }
        as.push_back(xIsA ? xv : yv);
        bs.push_back(xIsA ? yv : xv);
        ids.push_back(g);
      }
  }
  return plan;
}

/// The plan of a 2-D product, or of one batch index of a batched one (the
/// layouts with the batch dimension dropped).
FailureOr<MfmaPlan> planMfma2D(MfmaOp op, const LinearLayout &la2,
                               const LinearLayout &lb2, const LinearLayout &lc2) {
  RankedTensorType aTy = op.getA().getType(), bTy = op.getB().getType(),
                   cTy = op.getC().getType();
  auto acc = cast<MfmaEncodingAttr>(cTy.getEncoding());
  // The M x K, K x N and M x N shapes (a batched product's without the batch).
  unsigned o = cTy.getRank() - 2;
  int64_t aShape[2] = {aTy.getShape()[o], aTy.getShape()[o + 1]};
  int64_t bShape[2] = {bTy.getShape()[o], bTy.getShape()[o + 1]};
  int64_t cShape[2] = {cTy.getShape()[o], cTy.getShape()[o + 1]};
  MfmaPlan plan;
  ArrayRef<unsigned> shape = acc.getInstrShape();
  plan.transposed = acc.getTransposed();
  // Transposed, the instruction reads b as its A operand (C^T = B^T A^T): a
  // mixed fp8 x bf8 product becomes the bf8 x fp8 instruction.
  Type ta = aTy.getElementType(), tb = bTy.getElementType();
  if (plan.transposed)
    std::swap(ta, tb);
  plan.instr = lookupMfma(acc.getVersion(), shape[0], shape[1], shape[2], ta,
                          tb, cTy.getElementType());
  if (!plan.instr)
    return op.emitOpError() << "no mfma instruction for these types";
  const MfmaInstr &in = *plan.instr;
  const LinearLayout *la = &la2, *lb = &lb2, *lc = &lc2;
  auto fail = [&](StringRef what, const Twine &why) {
    op.emitOpError() << what << "'s layout is not the mfma one: " << why
                     << " (use AMDMFMALayout(...) for the accumulator and "
                        "DotOperandLayout(0 or 1, it, k_width) with one "
                        "k_width for a and b)";
    return failure();
  };
  int32_t m = in.m, n = in.n;
  // A tensor smaller than the instruction's block along M or N: the
  // layouts broadcast (a step past the extent is zero) and the block's extra
  // rows / columns compute the same elements again.
  int64_t aExtent[2] = {aShape[0], aShape[1]};
  int64_t bExtent[2] = {bShape[0], bShape[1]};
  auto basisIn = [](const int64_t *ext, unsigned dim, int32_t step) {
    Coord c = {0, 0};
    c[dim] = step < ext[dim] ? step : 0;
    return c;
  };
  FailureOr<SmallVector<mfma::AccBlock>> blocks = mfma::planAccumulator(
      *lc, cShape, m, n, plan.transposed, fail,
      mfmaAccHeight(acc.getElementBitWidth()));
  if (failed(blocks))
    return failure();
  ArrayRef<LinearLayout::Basis> aL = la->getBases(LinearLayout::Lane),
                                bL = lb->getBases(LinearLayout::Lane);
  if (aL.size() != 6 || bL.size() != 6)
    return fail(aL.size() != 6 ? "a" : "b", "it is not for 64-lane waves");
  // The operands' lanes: M (N) first, then K by the same steps in both.
  unsigned mBits = llvm::Log2_32(m), nBits = llvm::Log2_32(n);
  SmallVector<int32_t> laneK, laneKFull; // Full: with 0 for duplicate bits
  for (unsigned i = 0; i < 6; ++i) {
    if (i < mBits) {
      if (Coord(aL[i].begin(), aL[i].end()) != basisIn(aExtent, 0, 1 << i))
        return fail("a", "lane bit " + Twine(i) + " moves by " + basisText(aL[i]) +
                             ", the instruction's by " +
                             basisText(basisIn(aExtent, 0, 1 << i)));
      continue;
    }
    if (!aL[i][0] && !aL[i][1] && m != 4 && n != 4) {
      // The operand layout's K tile (k_width x the lane groups) is longer
      // than K (as Triton's for K below the instruction's): the lanes with
      // this bit set hold the same K values as those without.
      plan.duplicateLanes |= 1 << i;
      laneKFull.push_back(0);
      continue;
    }
    if (aL[i][0] || !aL[i][1])
      return fail("a", "lane bit " + Twine(i) + " moves by " + basisText(aL[i]) +
                           "; it must move along K");
    laneK.push_back(aL[i][1]);
    laneKFull.push_back(aL[i][1]);
  }
  // The 4x4 instructions (4 x 64, or 64 x 4 transposed): one operand's 4-wide
  // side is shared by the 16 blocks, its K spread over 16 lane groups (a's
  // lanes above, or b's here); the other holds all of K in each lane.
  bool broadcast = m == 4 || n == 4;
  SmallVector<int32_t> laneKb;
  for (unsigned i = 0; i < 6; ++i) {
    if (broadcast && i >= nBits && laneK.empty()) {
      if (bL[i][1] || !bL[i][0])
        return fail("b", "lane bit " + Twine(i) + " moves by " + basisText(bL[i]) +
                             "; it must move along K");
      laneKb.push_back(bL[i][0]);
      continue;
    }
    Coord want = i < nBits ? basisIn(bExtent, 1, 1 << i)
                           : basisIn(bExtent, 0, laneKFull[i - nBits]);
    if (Coord(bL[i].begin(), bL[i].end()) != want)
      return fail("b", "lane bit " + Twine(i) + " moves by " + basisText(bL[i]) +
                           ", a's K lanes and the instruction's N lanes need " +
                           basisText(want));
  }
  ArrayRef<LinearLayout::Basis> wa = la->getBases(LinearLayout::Warp),
                                wb = lb->getBases(LinearLayout::Warp),
                                wc = lc->getBases(LinearLayout::Warp);
  if (wa.size() != wc.size() || wb.size() != wc.size())
    return fail("a", "its warps are not the accumulator's");
  for (unsigned i = 0; i < wc.size(); ++i) {
    if (wa[i][1] || wb[i][0])
      return fail(wa[i][1] ? "a" : "b", "warp bit " + Twine(i) +
                                            " moves along K; each warp must "
                                            "hold all of K");
    if (wa[i][0] != wc[i][0] || wb[i][1] != wc[i][1])
      return fail(wa[i][0] != wc[i][0] ? "a" : "b",
                  "warp bit " + Twine(i) + " moves the operands by [" +
                      Twine(wa[i][0]) + " rows, " + Twine(wb[i][1]) +
                      " columns] but the accumulator by " + basisText(wc[i]));
  }
  // K shorter than k_width: a lane's registers would hold K values twice
  // (the lanes that repeat K are handled above; registers are not).
  auto op0 = cast<DotOperandEncodingAttr>(aTy.getEncoding());
  if (aShape[1] < op0.getKWidth())
    return op.emitOpError() << "K = " << aShape[1] << " is shorter than k_width "
                            << op0.getKWidth() << " (use a k_width of at most "
                            << aShape[1] << ")";
  std::map<Coord, unsigned> ra = registersByCoordinate(*la),
                            rb = registersByCoordinate(*lb);
  for (auto [what, map, ll] :
       {std::tuple<StringRef, std::map<Coord, unsigned> *, const LinearLayout *>{
            "a", &ra, la},
        {"b", &rb, lb}})
    if (int64_t(map->size()) != ll->getInSize(LinearLayout::Register))
      return fail(what, "two registers hold the same element");
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
  int64_t k = aShape[1];
  if (broadcast)
    return planBroadcastSteps(plan, *blocks, ra, rb, plan.transposed ? laneKb : laneK, k,
                              find, fail);
  for (mfma::AccBlock &block : *blocks) {
    int32_t r0 = block.r0, c0 = block.c0;
    plan.d.push_back(block.d);
    // The K values lane 0 holds in row r0 of a, in order; with the lanes'
    // K offsets they must cover K once.
    SmallVector<int32_t> ks;
    for (auto &[coord, areg] : ra)
      if (coord[0] == r0)
        ks.push_back(coord[1]);
    llvm::sort(ks);
    llvm::DenseSet<int32_t> covered;
    for (int32_t g = 0; g < (1 << laneK.size()); ++g) {
      int32_t off = 0;
      for (unsigned bit = 0; bit < laneK.size(); ++bit)
        if (g >> bit & 1)
          off ^= laneK[bit];
      for (int32_t kv : ks)
        covered.insert(kv ^ off);
    }
    if (int64_t(covered.size()) != k ||
        int64_t(ks.size()) << laneK.size() != k || ks.size() % in.kBase)
      return fail("a", "its lanes and registers do not hold each of the " +
                           Twine(k) + " K values of a row once in steps of " +
                           Twine(in.kBase));
    auto &as = plan.a.emplace_back();
    auto &bs = plan.b.emplace_back();
    for (size_t s0 = 0; s0 < ks.size(); s0 += in.kBase) {
      SmallVector<int64_t> av, bv;
      for (unsigned j = 0; j < in.kBase; ++j) {
        FailureOr<int64_t> x = find(ra, "a", r0, ks[s0 + j]);
        FailureOr<int64_t> y = find(rb, "b", ks[s0 + j], c0);
        if (failed(x) || failed(y))
          return failure();
        av.push_back(*x);
        bv.push_back(*y);
      }
      as.push_back(av);
      bs.push_back(bv);
    }
  }
  return plan;
}

/// A lane's operand registers packed as the intrinsic takes them.
Value packOperand(OpBuilder &b, Location loc, const MfmaInstr &in,
                  ArrayRef<Value> regs, ArrayRef<int64_t> idx) {
  if (in.pack == MfmaPack::Scalar)
    return regs[idx[0]];
  Type elem = regs[idx[0]].getType();
  unsigned bits = elem.getIntOrFloatBitWidth();
  Type vecElem = in.pack == MfmaPack::Vector ? elem : b.getIntegerType(bits);
  auto vecTy = VectorType::get({int64_t(idx.size())}, vecElem);
  Value v = LLVM::PoisonOp::create(b, loc, vecTy);
  for (auto [j, r] : llvm::enumerate(idx)) {
    Value x = regs[r];
    if (x.getType() != vecElem)
      x = LLVM::BitcastOp::create(b, loc, vecElem, x);
    v = LLVM::InsertElementOp::create(b, loc, v, x, i32Const(b, loc, j));
  }
  switch (in.pack) {
  case MfmaPack::I32:
    return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
  case MfmaPack::I64:
    return LLVM::BitcastOp::create(b, loc, b.getI64Type(), v);
  case MfmaPack::I32x4:
    return LLVM::BitcastOp::create(
        b, loc, VectorType::get({4}, b.getI32Type()), v);
  default:
    return v;
  }
}

struct MfmaConversion : TileOpConversion<MfmaOp> {
  using TileOpConversion::TileOpConversion;

  LogicalResult
  matchAndRewrite(MfmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<MfmaPlan> plan = planMfma(op);
    if (failed(plan))
      return failure();
    const MfmaInstr &in = *plan->instr;
    Location loc = op.getLoc();
    SmallVector<Value> aRegs = getRegisters(rewriter, loc, adaptor.getA());
    SmallVector<Value> bRegs = getRegisters(rewriter, loc, adaptor.getB());
    SmallVector<Value> out = getRegisters(rewriter, loc, adaptor.getC());
    Type accElem = in.intAcc     ? Type(rewriter.getI32Type())
                   : isF64Mfma(in) ? rewriter.getF64Type()
                                   : rewriter.getF32Type();
    auto accTy = VectorType::get({int64_t(in.m * in.n / 64)}, accElem);
    Value zero = i32Const(rewriter, loc, 0); // cbsz, abid, blgp: no broadcast
    // K shorter than the operands' K tile: whether this lane holds K values
    // that lanes of lower index already feed (it feeds zeros instead).
    Value duplicate;
    if (plan->duplicateLanes) {
      // the mask's bits are below the wave's 64, so the block's thread index
      // stands for the lane's
      Value tid = ROCDL::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
      Value lane = LLVM::AndOp::create(rewriter, loc, tid,
                                       i32Const(rewriter, loc, plan->duplicateLanes));
      duplicate = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, lane, zero);
    }
    // K steps outermost (as MFMAScaledOpToLLVM.cpp): each step's operands
    // are used by every output tile before the next step's are read.
    // A batched product: the same plan for each batch repeat, its registers
    // one chunk further on.
    auto shifted = [](ArrayRef<int64_t> idx, int64_t by) {
      SmallVector<int64_t> v(idx);
      for (int64_t &x : v)
        x += by;
      return v;
    };
    for (int64_t rep = 0; rep < plan->repeats; ++rep) {
      int64_t da = rep * plan->chunkA, db = rep * plan->chunkB,
              dc = rep * plan->chunkC;
      SmallVector<Value> accs;
      size_t steps = 0;
      for (size_t t = 0; t < plan->d.size(); ++t) {
        Value acc = LLVM::PoisonOp::create(rewriter, loc, accTy);
        for (auto [i, r] : llvm::enumerate(plan->d[t]))
          acc = LLVM::InsertElementOp::create(rewriter, loc, acc, out[r + dc],
                                              i32Const(rewriter, loc, i));
        accs.push_back(acc);
        steps = std::max(steps, plan->a[t].size());
      }
      for (size_t s = 0; s < steps; ++s) {
        for (size_t t = 0; t < plan->d.size(); ++t) {
          if (s >= plan->a[t].size())
            continue;
          Value x = packOperand(rewriter, loc, in, aRegs, shifted(plan->a[t][s], da));
          Value y = packOperand(rewriter, loc, in, bRegs, shifted(plan->b[t][s], db));
          if (duplicate) {
            auto zeroed = [&](Value v) -> Value {
              Value z = LLVM::ZeroOp::create(rewriter, loc, v.getType());
              return LLVM::SelectOp::create(rewriter, loc, duplicate, z, v);
            };
            x = zeroed(x);
            y = zeroed(y);
          }
          // Transposed: C^T = B^T A^T, so the instruction's lanes run along M.
          if (plan->transposed)
            std::swap(x, y);
          OperationState state(loc, ("rocdl." + in.name).str());
          // A 4x4 instruction: every block takes the shared operand from lane
          // group ABID (CBSZ 4: all 16 blocks).
          Value cbsz = zero, abid = zero;
          if (!plan->abid.empty()) {
            cbsz = i32Const(rewriter, loc, 4);
            abid = i32Const(rewriter, loc, plan->abid[t][s]);
          }
          state.addOperands({x, y, accs[t], cbsz, abid, zero});
          state.addTypes(accTy);
          accs[t] = rewriter.create(state)->getResult(0);
        }
      }
      for (size_t t = 0; t < plan->d.size(); ++t)
        for (auto [i, r] : llvm::enumerate(plan->d[t]))
          out[r + dc] = LLVM::ExtractElementOp::create(rewriter, loc, accs[t],
                                                       i32Const(rewriter, loc, i));
    }
    rewriter.replaceOp(op, packStruct(rewriter, loc, convert(op.getType()), out));
    return success();
  }
};

} // namespace

LogicalResult kiln::checkMfmaLayouts(ModuleOp module) {
  WalkResult r = module.walk([](MfmaOp op) {
    return failed(planMfma(op)) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

void kiln::populateMfmaOpToLLVMPatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        const LoweringContext &ctx) {
  patterns.add<MfmaConversion>(converter, ctx);
}

std::string kiln::mfma::basisText(ArrayRef<int32_t> b) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(b, os);
  return s + "]";
}

FailureOr<SmallVector<mfma::AccBlock>>
kiln::mfma::planAccumulator(const LinearLayout &lc, ArrayRef<int64_t> shape,
                            int32_t m, int32_t n, bool transposed, FailFn fail,
                            int32_t height) {
  unsigned rows = transposed ? 1 : 0, cols = 1 - rows;
  int32_t colSize = transposed ? m : n;
  int64_t extent[2] = {shape[0], shape[1]};
  auto basis = [&](unsigned dim, int32_t step) {
    Coord c = {0, 0};
    c[dim] = step < extent[dim] ? step : 0;
    return c;
  };
  ArrayRef<LinearLayout::Basis> cL = lc.getBases(LinearLayout::Lane);
  if (cL.size() != 6)
    return fail("the accumulator", "it is not for 64-lane waves");
  unsigned colBits = llvm::Log2_32(colSize);
  for (unsigned i = 0; i < 6; ++i) {
    Coord want = i < colBits ? basis(cols, 1 << i) : basis(rows, height << (i - colBits));
    if (Coord(cL[i].begin(), cL[i].end()) != want)
      return fail("the accumulator", "lane bit " + Twine(i) + " moves by " +
                                         basisText(cL[i]) +
                                         ", the instruction's by " +
                                         basisText(want));
  }
  std::map<Coord, unsigned> rc = registersByCoordinate(lc);
  if (int64_t(rc.size()) != lc.getInSize(LinearLayout::Register))
    return fail("the accumulator", "two registers hold the same element");
  // Rows / columns past a broadcast tensor's extent hold its elements again.
  auto wrap = [](int32_t x, int64_t ext) { return int32_t(x % ext); };
  // Blocks in register order, so the output follows the input.
  SmallVector<std::pair<Coord, unsigned>> origins;
  for (auto &[coord, reg] : rc)
    if (coord[0] % m == 0 && coord[1] % n == 0)
      origins.push_back({coord, reg});
  llvm::sort(origins, [](auto &x, auto &y) { return x.second < y.second; });
  int32_t perBlock = m * n / 64, rowsCovered = height * (64 / colSize);
  SmallVector<AccBlock> blocks;
  llvm::DenseSet<int64_t> covered;
  for (auto &[origin, reg] : origins) {
    AccBlock &block = blocks.emplace_back();
    block.r0 = origin[0];
    block.c0 = origin[1];
    for (int32_t i = 0; i < perBlock; ++i) {
      int32_t off = i % height + rowsCovered * (i / height);
      Coord want = {wrap(block.r0 + (rows == 0 ? off : 0), extent[0]),
                    wrap(block.c0 + (rows == 1 ? off : 0), extent[1])};
      auto it = rc.find(want);
      if (it == rc.end())
        return fail("the accumulator", "no register holds row " +
                                           Twine(want[0]) + ", column " +
                                           Twine(want[1]) +
                                           " of the thread's part");
      block.d.push_back(it->second);
      covered.insert(it->second);
    }
  }
  if (int64_t(covered.size()) != int64_t(rc.size()))
    return fail("the accumulator", "its registers are not whole " + Twine(m) +
                                       " x " + Twine(n) + " blocks");
  return blocks;
}
