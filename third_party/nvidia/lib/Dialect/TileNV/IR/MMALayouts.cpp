//===- MMALayouts.cpp - #tile_nv.nvmma and #tile_nv.dot_op ----------------===//
//
// The register layouts of the tensor-core instructions: the accumulator of
// mma.sync (version 2) and wgmma (version 3), and the operands held in
// registers, as F2-linear maps. Within a warp both follow the m16n8k16
// fragments of PTX: an 8-row x 4-lane grid of threads, each holding a pair
// of consecutive elements along the fast dimension (N for the accumulator,
// K for the operands), repeated 8 rows down and, for the operands, 8 K
// further.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

namespace {

/// Collects bases on a rank-2 ([M, N]) or rank-3 ([batch, M, N]) shape; a
/// move past the tensor's extent is a broadcast (zero), and registers that
/// only repeat others are dropped at the end (as the other layouts do).
struct BasesND {
  SmallVector<int32_t, 3> shape;
  LinearLayout::Bases reg, lane, warp;

  explicit BasesND(ArrayRef<int64_t> s) {
    for (int64_t e : s)
      shape.push_back(int32_t(e));
  }
  unsigned rank() const { return shape.size(); }
  /// A move by `step` along `dim` (zero past the extent).
  LinearLayout::Basis basis(unsigned dim, int32_t step) const {
    LinearLayout::Basis b(rank(), 0);
    if (step < shape[dim])
      b[dim] = step;
    return b;
  }
  /// Register bases doubling along `dim` from `from` to the extent.
  void repeat(unsigned dim, int32_t from) {
    for (int32_t s = from; s < shape[dim]; s *= 2)
      reg.push_back(basis(dim, s));
  }
  /// `count` warp bases along `dim`, `step` apart (zero when `zero`).
  void warps(unsigned dim, unsigned count, int32_t step, bool zero = false) {
    for (int32_t w = 1; w < int32_t(count); w *= 2)
      warp.push_back(zero ? LinearLayout::Basis(rank(), 0) : basis(dim, step * w));
  }
  LinearLayout finish() {
    llvm::erase_if(reg, [](const LinearLayout::Basis &b) {
      return llvm::all_of(b, [](int32_t v) { return v == 0; });
    });
    return LinearLayout({reg, lane, warp}, shape);
  }
};

/// The order in which warp bits take the dimensions of an accumulator of
/// `rank` (Gluon's): wgmma M first (a warpgroup's 4 warps take consecutive
/// rows), mma.sync N first; a batch dimension last.
SmallVector<unsigned, 3> warpOrder(unsigned major, unsigned rank) {
  unsigned m = rank - 2, n = rank - 1;
  SmallVector<unsigned, 3> order =
      major == 3 ? SmallVector<unsigned, 3>{m, n} : SmallVector<unsigned, 3>{n, m};
  if (rank == 3)
    order.push_back(0);
  return order;
}

} // namespace

//===----------------------------------------------------------------------===//
// #tile_nv.nvmma
//===----------------------------------------------------------------------===//

LogicalResult NVMMADistributedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned major,
    unsigned minor, ArrayRef<unsigned> warps, ArrayRef<unsigned> instr) {
  // Gluon's versions: [2, 0] and [2, 1] are the same mma.sync layout.
  if (!((major == 2 && minor <= 1) || (major == 3 && minor == 0)))
    return emitError() << "nvmma: version must be [2, 0], [2, 1] (mma.sync) "
                          "or [3, 0] (wgmma), got ["
                       << major << ", " << minor << "]";
  if (warps.size() != 2 && warps.size() != 3)
    return emitError() << "nvmma: warpsPerCTA has 2 entries ([m, n]) or 3 "
                          "([batch, m, n]), got "
                       << warps.size();
  for (unsigned w : warps)
    if (!w || !llvm::isPowerOf2_32(w))
      return emitError() << "nvmma: warpsPerCTA entries must be powers of two";
  if (major == 2) {
    bool ok = instr.size() == warps.size() && instr.take_back(2)[0] == 16 &&
              instr.back() == 8 && (instr.size() == 2 || instr[0] == 1);
    if (!ok)
      return emitError() << "nvmma: version 2 (mma.sync) has instrShape "
                         << (warps.size() == 2 ? "[16, 8]" : "[1, 16, 8]");
    return success();
  }
  // Which warps hold which rows is the layout's business; whether wgmma can
  // use it (a warpgroup's 4 warps on consecutive rows) is checked where a
  // warpgroup_mma uses it.
  if (instr.size() != 3)
    return emitError() << "nvmma: version 3 (wgmma) has instrShape [16, n, k]";
  if (instr[0] != 16 || instr[1] < 8 || instr[1] > 256 ||
      !llvm::isPowerOf2_32(instr[1]))
    return emitError() << "nvmma: instrShape must be [16, n, k] with n a power "
                          "of two in [8, 256]";
  return success();
}

unsigned NVMMADistributedEncodingAttr::getRank() const {
  return getWarpsPerCTA().size();
}

LinearLayout
NVMMADistributedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  BasesND l(shape);
  unsigned r = l.rank(), m = r - 2, n = r - 1;
  unsigned major = getVersionMajor();
  int32_t tileN = major == 3 ? int32_t(getInstrShape()[1]) : 8;
  ArrayRef<unsigned> warps = getWarpsPerCTA();
  // One warp's 16 x tileN tile: pairs along N, 4 lanes across, 8 lanes down,
  // the lower 8 rows, then further N.
  l.reg.push_back(l.basis(n, 1));
  l.reg.push_back(l.basis(m, 8));
  for (int32_t c = 8; c < tileN; c *= 2)
    l.reg.push_back(l.basis(n, c));
  for (auto [d, s] : {std::pair{n, 2}, {n, 4}, {m, 1}, {m, 2}, {m, 4}})
    l.lane.push_back(l.basis(d, s));
  for (unsigned d : warpOrder(major, r))
    l.warps(d, warps[d], d == m ? 16 : d == n ? tileN : 1);
  // Repeats: N, then M, then the batch.
  l.repeat(n, tileN * warps[n]);
  l.repeat(m, 16 * warps[m]);
  if (r == 3)
    l.repeat(0, warps[0]);
  return l.finish();
}

//===----------------------------------------------------------------------===//
// #tile_nv.dot_op
//===----------------------------------------------------------------------===//

LogicalResult DotOperandEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned opIdx,
    Attribute parent, unsigned kWidth) {
  auto mma = dyn_cast<NVMMADistributedEncodingAttr>(parent);
  if (!mma)
    return emitError() << "dot_op: parent must be a #tile_nv.nvmma layout, got "
                       << parent;
  if (opIdx > 1)
    return emitError() << "dot_op: opIdx must be 0 (A) or 1 (B), got " << opIdx;
  if (mma.getVersionMajor() == 3 && opIdx != 0)
    return emitError() << "dot_op: wgmma (version 3) reads B from shared "
                          "memory; only opIdx 0 (A) is held in registers";
  if (!kWidth || kWidth > 16 || !llvm::isPowerOf2_32(kWidth))
    return emitError() << "dot_op: kWidth must be a power of two in [1, 16], got "
                       << kWidth;
  return success();
}

unsigned DotOperandEncodingAttr::getRank() const {
  return cast<NVMMADistributedEncodingAttr>(getParent()).getRank();
}

LinearLayout
DotOperandEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  auto mma = cast<NVMMADistributedEncodingAttr>(getParent());
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  bool isA = getOpIdx() == 0;
  int32_t kw = getKWidth();
  BasesND l(shape);
  unsigned r = l.rank();
  // A is [batch, M, K], B is [batch, K, N].
  unsigned kDim = isA ? r - 1 : r - 2, own = isA ? r - 2 : r - 1;
  // A warp's tile: 8·kWidth along K by 16 rows (A) or 8 columns (B).
  int32_t tileOwn = isA ? 16 : 8;
  for (int32_t k = 1; k < kw; k *= 2)
    l.reg.push_back(l.basis(kDim, k));
  l.lane.push_back(l.basis(kDim, kw));
  l.lane.push_back(l.basis(kDim, 2 * kw));
  for (int32_t s = 1; s < 8; s *= 2)
    l.lane.push_back(l.basis(own, s));
  // A's two 8-row halves; both operands take 2 K groups.
  if (isA)
    l.reg.push_back(l.basis(own, 8));
  l.reg.push_back(l.basis(kDim, 4 * kw));
  // Warps follow the parent's along M (A) or N (B) and the batch, and hold
  // the same elements along K (zero bases), in the parent's order.
  for (unsigned d : warpOrder(mma.getVersionMajor(), r))
    l.warps(d, warps[d], d == own ? tileOwn : 1, /*zero=*/d == kDim);
  // Repeats: K first, then M or N, then the batch.
  l.repeat(kDim, 8 * kw);
  l.repeat(own, tileOwn * warps[own]);
  if (r == 3)
    l.repeat(0, warps[0]);
  return l.finish();
}
