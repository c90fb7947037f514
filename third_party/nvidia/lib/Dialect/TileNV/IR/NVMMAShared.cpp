//===- NVMMAShared.cpp - #tile_nv.nvmma_shared ---------------------------===//
//
// The shared layout TMA writes and wgmma reads, as an F2-linear map from the
// element offset to buffer coordinates (the form every shared layout has).
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/TileNV/IR/Dialect.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;
using namespace kiln::tile_nv;

LogicalResult
NVMMASharedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                unsigned swizzle, unsigned bits, unsigned rank,
                                bool transposed) {
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "nvmma_shared: swizzle must be 0, 32, 64 or 128 "
                          "bytes, got "
                       << swizzle;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return emitError() << "nvmma_shared: elementBitWidth must be 8, 16, 32 or "
                          "64, got "
                       << bits;
  if (rank < 1 || rank > 5)
    return emitError() << "nvmma_shared: layoutRank must be in [1, 5], got " << rank;
  // One dimension has no rows to swizzle or to exchange with the columns.
  if (rank == 1 && (swizzle || transposed))
    return emitError() << "nvmma_shared: a 1-D layout is neither swizzled nor "
                          "transposed (swizzle " << swizzle << ", transposed "
                       << (transposed ? "true" : "false") << ")";
  return success();
}

unsigned NVMMASharedEncodingAttr::getRank() const { return getLayoutRank(); }

unsigned NVMMASharedEncodingAttr::getChunkElements() const {
  return std::max(getSwizzle(), 16u) * 8 / getElementBitWidth();
}

unsigned NVMMASharedEncodingAttr::getBaseAlignment() const { return 1024; }

LogicalResult NVMMASharedEncodingAttr::verifyDescriptorElementType(
    function_ref<InFlightDiagnostic()> emitError, Type elementType) const {
  if (elementType.getIntOrFloatBitWidth() != getElementBitWidth())
    return emitError() << "nvmma_shared: the layout is for "
                       << getElementBitWidth() << "-bit elements, the "
                       << "descriptor's block holds " << elementType;
  return success();
}

// A buffer of another element width is laid out by the layout's own element
// width (the swizzle moves units of 128 / elementBitWidth elements), as in
// Gluon; wgmma checks the addresses it reads, TMA the width above.
LogicalResult NVMMASharedEncodingAttr::verifyBuffer(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
    Type elementType) const {
  unsigned rank = getRank();
  int64_t contiguous = shape[getTransposed() ? rank - 2 : rank - 1];
  if (contiguous < getChunkElements())
    return emitError() << "nvmma_shared: rows of " << contiguous
                       << " elements are narrower than the "
                       << std::max(getSwizzle(), 16u)
                       << "-byte swizzle chunk (" << getChunkElements()
                       << " elements); use a smaller swizzle";
  if (rank == 1)
    return success();
  return success();
}

/// Offset bits, fastest first: the columns of one chunk, the rows, the
/// chunks, then the leading dimensions (outermost last). The swizzle is the
/// hardware's, on the buffer's own (1,024-byte aligned) addresses: the
/// 16-byte units of a 128-byte line are XORed with the line's index bits
/// (address bits 7 and up, as many as the swizzle has units less one). With
/// 8 rows or more those bits are the rows'; a block of fewer rows takes the
/// rest from the chunks and then the leading dimensions, as TMA does when
/// its boxes land one after another.
LinearLayout
NVMMASharedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  unsigned rank = getRank();
  assert(shape.size() == rank && "shape must match the layout's rank");
  if (rank == 1) { // contiguous elements
    LinearLayout::Bases offsets;
    for (int64_t v = 1; v < shape[0]; v *= 2)
      offsets.push_back({int32_t(v)});
    return LinearLayout({offsets, {}, {}}, {int32_t(shape[0])});
  }
  unsigned colDim = getTransposed() ? rank - 2 : rank - 1;
  unsigned rowDim = getTransposed() ? rank - 1 : rank - 2;
  auto unit = [&](unsigned dim, int32_t value) {
    LinearLayout::Basis b(rank, 0);
    b[dim] = value;
    return b;
  };
  int64_t cols = shape[colDim];
  int64_t chunk = getRowChunkElements(cols);
  int64_t vec = 128 / getElementBitWidth(); // one 16-byte unit
  LinearLayout::Bases offsets;
  for (int64_t c = 1; c < chunk; c *= 2)
    offsets.push_back(unit(colDim, c));
  unsigned perPhase = getSwizzle() ? 128 / getSwizzle() : 1;
  unsigned phaseBits = getSwizzle() ? llvm::Log2_32(getSwizzle() / 16) : 0;
  unsigned shift = llvm::Log2_32(perPhase);
  // Offset bit j above the chunk's columns is address bit log2(chunk bytes)
  // + j; those in [7, 7 + phaseBits) flip the 16-byte unit bits.
  unsigned j = 0;
  auto push = [&](LinearLayout::Basis b) {
    if (j >= shift && j < shift + phaseBits) {
      int64_t flip = vec << (j - shift);
      if (flip < chunk)
        b[colDim] ^= flip;
    }
    offsets.push_back(b);
    ++j;
  };
  for (int64_t r = 1; r < shape[rowDim]; r *= 2)
    push(unit(rowDim, r));
  for (int64_t c = chunk; c < cols; c *= 2)
    push(unit(colDim, c));
  for (int d = int(rank) - 3; d >= 0; --d)
    for (int64_t v = 1; v < shape[d]; v *= 2)
      push(unit(d, v));
  SmallVector<int32_t> sizes(shape.begin(), shape.end());
  return LinearLayout({offsets, {}, {}}, sizes);
}

// Swapping the last two dimensions is the same bytes with the contiguous
// dimension named the other way; other permutations are not expressible.
Attribute NVMMASharedEncodingAttr::getPermuted(ArrayRef<int32_t> perm) const {
  unsigned rank = getRank();
  if (perm.size() != rank)
    return {};
  if (rank == 1)
    return perm[0] == 0 ? Attribute(*this) : Attribute();
  for (unsigned i = 0; i + 2 < rank; ++i)
    if (perm[i] != int32_t(i))
      return {};
  if (perm[rank - 2] == int32_t(rank - 2))
    return *this;
  return NVMMASharedEncodingAttr::get(getContext(), getSwizzle(),
                                      getElementBitWidth(), rank,
                                      !getTransposed());
}

Attribute NVMMASharedEncodingAttr::getReshaped(ArrayRef<int64_t> shape,
                                               ArrayRef<int64_t> newShape) const {
  if (shape == newShape)
    return *this;
  return {};
}
