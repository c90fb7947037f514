//===- GatherLayout.cpp - Where a gather's elements live ------------------===//

#include "kiln/Dialect/Tile/IR/GatherLayout.h"

#include "kiln/Dialect/Tile/IR/Utility.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

CoordBits::CoordBits(ArrayRef<int64_t> shape) {
  for (int64_t e : shape) {
    offset.push_back(total);
    width.push_back(llvm::Log2_64(e));
    total += width.back();
  }
}

uint64_t CoordBits::pack(ArrayRef<int32_t> c) const {
  uint64_t v = 0;
  for (unsigned d = 0; d < c.size(); ++d)
    v |= uint64_t(c[d]) << offset[d];
  return v;
}

FailureOr<SmallVector<uint64_t>>
kiln::tile::invertLayout(const LinearLayout &ll, const CoordBits &bits) {
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
    if (!llvm::any_of(pivots,
                      [&](auto &p) { return p.first == (uint64_t(1) << k); }))
      return failure();
  return out;
}

uint64_t kiln::tile::applyInverse(ArrayRef<uint64_t> inverse, uint64_t coord) {
  uint64_t in = 0;
  for (unsigned k = 0; k < inverse.size(); ++k)
    if (coord >> k & 1)
      in ^= inverse[k];
  return in;
}

FailureOr<GatherLayouts>
kiln::tile::analyzeGather(GatherOp op,
                          function_ref<InFlightDiagnostic()> emit) {
  auto srcTy = op.getSrc().getType(), idxTy = op.getIndices().getType();
  unsigned axis = op.getAxis();
  FailureOr<LinearLayout> srcLL = getLinearLayout(srcTy, emit),
                          idxLL = getLinearLayout(idxTy, emit);
  if (failed(srcLL) || failed(idxLL))
    return failure();
  GatherLayouts g{*srcLL, *idxLL, CoordBits(srcTy.getShape()), {}, false};
  FailureOr<SmallVector<uint64_t>> inverse = invertLayout(g.src, g.bits);
  if (failed(inverse)) {
    if (emit)
      emit() << "the source layout " << srcTy.getEncoding()
             << " does not hold every element";
    return failure();
  }
  g.inverse = std::move(*inverse);
  auto nonAxis = [&](ArrayRef<int32_t> c) {
    SmallVector<int32_t> k(c.begin(), c.end());
    k[axis] = 0;
    return g.bits.pack(k);
  };
  auto warpOf = [](uint64_t in) { return in >> 48; };
  // The axis bits must stay in the warp, and the other coordinates of an
  // output must select its own warp of the source, up to the source's
  // warp bits that move nowhere (every such warp holds the element).
  uint64_t anyWarp = 0;
  for (auto [i, b] : llvm::enumerate(g.src.getBases(LinearLayout::Warp)))
    if (llvm::all_of(b, [](int32_t v) { return v == 0; }))
      anyWarp |= uint64_t(1) << i;
  auto sameWarp = [&](uint64_t a, uint64_t b) {
    return (a & ~anyWarp) == (b & ~anyWarp);
  };
  g.warpLocal = true;
  for (unsigned k = 0; k < g.bits.width[axis]; ++k)
    if (!sameWarp(warpOf(g.inverse[g.bits.offset[axis] + k]), 0))
      g.warpLocal = false;
  for (auto dim : {LinearLayout::Register, LinearLayout::Lane})
    for (const auto &b : g.idx.getBases(dim))
      if (!sameWarp(warpOf(applyInverse(g.inverse, nonAxis(b))), 0))
        g.warpLocal = false;
  for (auto [i, b] : llvm::enumerate(g.idx.getBases(LinearLayout::Warp)))
    if (!sameWarp(warpOf(applyInverse(g.inverse, nonAxis(b))),
                  uint64_t(1) << i))
      g.warpLocal = false;
  return g;
}
