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

/// Collects bases on a 2-D shape; a move past the tensor's extent is a
/// broadcast (zero), and registers that only repeat others are dropped at
/// the end (as the other layouts do).
struct Bases2D {
  int32_t rows, cols;
  LinearLayout::Bases reg, lane, warp;

  LinearLayout::Basis basis(int32_t r, int32_t c) const {
    return {r < rows ? r : 0, c < cols ? c : 0};
  }
  /// Register bases doubling along `dim` from `from` to the extent.
  void repeat(unsigned dim, int32_t from) {
    int32_t extent = dim == 0 ? rows : cols;
    for (int32_t s = from; s < extent; s *= 2)
      reg.push_back(dim == 0 ? basis(s, 0) : basis(0, s));
  }
  LinearLayout finish() {
    llvm::erase_if(reg, [](const LinearLayout::Basis &b) {
      return b[0] == 0 && b[1] == 0;
    });
    return LinearLayout({reg, lane, warp}, {rows, cols});
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// #tile_nv.nvmma
//===----------------------------------------------------------------------===//

LogicalResult NVMMADistributedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned major,
    unsigned minor, ArrayRef<unsigned> warps, ArrayRef<unsigned> instr) {
  if ((major != 2 && major != 3) || minor != 0)
    return emitError() << "nvmma: version must be [2, 0] (mma.sync) or [3, 0] "
                          "(wgmma), got ["
                       << major << ", " << minor << "]";
  if (warps.size() != 2)
    return emitError() << "nvmma: warpsPerCTA has 2 entries";
  for (unsigned w : warps)
    if (!w || !llvm::isPowerOf2_32(w))
      return emitError() << "nvmma: warpsPerCTA entries must be powers of two";
  if (major == 2) {
    if (instr.size() != 2 || instr[0] != 16 || instr[1] != 8)
      return emitError() << "nvmma: version 2 (mma.sync) has instrShape "
                            "[16, 8]";
    return success();
  }
  if (instr.size() != 3)
    return emitError() << "nvmma: version 3 (wgmma) has instrShape [16, n, k]";
  if (warps[0] % 4)
    return emitError() << "nvmma: warpsPerCTA[0] must be a multiple of 4 (a "
                          "warpgroup's 4 warps take 64 consecutive rows), got "
                       << warps[0];
  if (instr[0] != 16 || instr[1] < 8 || instr[1] > 256 ||
      !llvm::isPowerOf2_32(instr[1]))
    return emitError() << "nvmma: instrShape must be [16, n, k] with n a power "
                          "of two in [8, 256]";
  return success();
}

unsigned NVMMADistributedEncodingAttr::getRank() const { return 2; }

LinearLayout
NVMMADistributedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  Bases2D l{int32_t(shape[0]), int32_t(shape[1]), {}, {}, {}};
  int32_t instrN = getInstrShape()[1];
  ArrayRef<unsigned> warps = getWarpsPerCTA();
  l.reg.push_back(l.basis(0, 1));
  l.reg.push_back(l.basis(8, 0));
  for (int32_t c = 8; c < instrN; c *= 2)
    l.reg.push_back(l.basis(0, c));
  for (auto [r, c] : {std::pair{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}})
    l.lane.push_back(l.basis(r, c));
  // Warps: down first for wgmma (a warpgroup's 4 warps take 64 rows), across
  // first for mma.sync.
  auto warpsDown = [&] {
    for (int32_t w = 1; w < int32_t(warps[0]); w *= 2)
      l.warp.push_back(l.basis(16 * w, 0));
  };
  auto warpsAcross = [&] {
    for (int32_t w = 1; w < int32_t(warps[1]); w *= 2)
      l.warp.push_back(l.basis(0, instrN * w));
  };
  if (getVersionMajor() == 3) {
    warpsDown();
    warpsAcross();
  } else {
    warpsAcross();
    warpsDown();
  }
  l.repeat(1, instrN * warps[1]);
  l.repeat(0, 16 * warps[0]);
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

unsigned DotOperandEncodingAttr::getRank() const { return 2; }

LinearLayout
DotOperandEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  auto mma = cast<NVMMADistributedEncodingAttr>(getParent());
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  bool isA = getOpIdx() == 0;
  int32_t kw = getKWidth();
  Bases2D l{int32_t(shape[0]), int32_t(shape[1]), {}, {}, {}};
  // (k, other) -> (row, col) of this operand: A is [M, K], B is [K, N].
  auto at = [&](int32_t k, int32_t other) {
    return isA ? l.basis(other, k) : l.basis(k, other);
  };
  for (int32_t k = 1; k < kw; k *= 2)
    l.reg.push_back(at(k, 0));
  l.lane.push_back(at(kw, 0));
  l.lane.push_back(at(2 * kw, 0));
  for (int32_t r = 1; r < 8; r *= 2)
    l.lane.push_back(at(0, r));
  // A's 16 rows are two 8-row halves; both operands take 2 K groups.
  if (isA)
    l.reg.push_back(at(0, 8));
  l.reg.push_back(at(4 * kw, 0));
  // Warps follow the parent's along M (A) or N (B) and hold the same
  // elements along the other dimension (zero bases), in the parent's order.
  unsigned ownDim = isA ? 0 : 1;
  int32_t ownStep = isA ? 16 : int32_t(mma.getInstrShape()[1]);
  auto warpBits = [&](unsigned dim) {
    for (int32_t w = 1; w < int32_t(warps[dim]); w *= 2)
      l.warp.push_back(dim == ownDim ? at(0, ownStep * w) : at(0, 0));
  };
  if (mma.getVersionMajor() == 3) {
    warpBits(0);
    warpBits(1);
  } else {
    warpBits(1);
    warpBits(0);
  }
  // Repeats: K first, then the other dimension.
  unsigned kDim = isA ? 1 : 0;
  l.repeat(kDim, 8 * kw);
  l.repeat(1 - kDim, ownStep * warps[ownDim]);
  return l.finish();
}
