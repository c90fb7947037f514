//===- GatherLayout.h - Where a gather's elements live ----------*- C++ -*-===//
//
// A tile.gather reads, for each output element, the source element at the
// output's coordinates with the axis coordinate replaced by the index. Both
// lowerings (shuffles within a warp; shared memory across warps) and the
// scratch size ask the same question: does every element an output thread
// may need live in its own warp? Answered on the layouts, over F2.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_TILE_IR_GATHERLAYOUT_H
#define KILN_DIALECT_TILE_IR_GATHERLAYOUT_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

namespace kiln::tile {

/// Coordinates as one bit vector: dimension d's bits at offset[d].
struct CoordBits {
  llvm::SmallVector<unsigned> offset, width;
  unsigned total = 0;
  explicit CoordBits(llvm::ArrayRef<int64_t> shape);
  uint64_t pack(llvm::ArrayRef<int32_t> c) const;
};

/// The inverse of `ll` on coordinate bits: for each coordinate bit, the
/// (register, lane, warp) bits of one place that holds it, packed as
/// reg | lane << 32 | warp << 48; fails when the layout misses a coordinate.
mlir::FailureOr<llvm::SmallVector<uint64_t>>
invertLayout(const LinearLayout &ll, const CoordBits &bits);

/// The packed input bits `inverse` gives the coordinate bits `coord`.
uint64_t applyInverse(llvm::ArrayRef<uint64_t> inverse, uint64_t coord);

/// A gather's layouts, inverted; `warpLocal` when every source element an
/// output thread may need lives in its own warp (up to source warp bits
/// that move nowhere).
struct GatherLayouts {
  LinearLayout src, idx;
  CoordBits bits;
  llvm::SmallVector<uint64_t> inverse;
  bool warpLocal = false;
};

/// Fails (with `emit`'s diagnostic, when given) when a layout has no linear
/// form or the source layout does not hold every element.
mlir::FailureOr<GatherLayouts>
analyzeGather(GatherOp op,
              llvm::function_ref<mlir::InFlightDiagnostic()> emit = {});

} // namespace kiln::tile

#endif
