//===- AxisInfo.h - Contiguity, divisibility and constancy ------*- C++ -*-===//
//
// A forward analysis over integer and pointer values that tells the
// load/store lowering how wide it may vectorize. For a value `v` of shape S
// and a dimension d, with c = contiguity[d], p = divisibility[d] and
// k = constancy[d], the analysis claims, for every index i whose i[d] is a
// multiple of the group size:
//
//   contiguity   v[i + j e_d] == v[i] + j       for 0 <= j < c
//   constancy    v[i + j e_d] == v[i]           for 0 <= j < k
//   divisibility p divides v[i] for every i with i[d] % c == 0, i.e. the
//                first element of each aligned contiguous group (every
//                element when c == 1)
//
// Integers wrap at their bit width; pointers are byte addresses, their
// contiguity counts elements and their divisibility counts bytes. All three
// are powers of two. A value carried around an scf.for loop gets the claims
// that hold for its initial value and are kept by every iteration (a fixed
// point: `ptrs += BK` stays as contiguous and aligned as its start). `test-print-axis-info` prints the claims, and
// test/Python/test_axis_info_soundness.py checks them by brute force on
// random expressions.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_AXISINFO_H
#define KILN_ANALYSIS_AXISINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln {

struct AxisInfo {
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;
  llvm::SmallVector<int64_t, 4> contiguity, divisibility, constancy;
  /// The value of every element, when it is one known integer.
  std::optional<int64_t> constant;
  /// Difference between neighbours in a contiguous group: 1 for integers,
  /// the pointee's size in bytes for pointers.
  int64_t step = 1;

  unsigned getRank() const { return contiguity.size(); }
  /// The power of two dividing every element at an index whose `d`-th
  /// coordinate is a multiple of `group` (a power of two).
  int64_t divisibilityAt(unsigned d, int64_t group) const;
  /// The power of two dividing every element.
  int64_t elementDivisibility() const;
  /// Nothing known about a value of `rank` dimensions (1 for scalars).
  static AxisInfo unknown(unsigned rank);
};

/// Computed lazily per value; usable as an MLIR analysis
/// (`getAnalysis<AxisInfoAnalysis>()`) or on its own.
class AxisInfoAnalysis {
public:
  AxisInfoAnalysis() = default;
  explicit AxisInfoAnalysis(mlir::Operation *) {}
  AxisInfo get(mlir::Value v);

  /// Signed bounds [lo, hi] every element of an integer `v` lies in, from
  /// constants, aranges, program ids and the arithmetic between them
  /// (nullopt where unknown or where an operation may wrap): what the
  /// signed division and remainder rules need (x >= 0). Not IntRanges
  /// (upstream IntegerRangeAnalysis): that is a solver run once over a whole
  /// function, while this analysis is lazy per value and asked by passes in
  /// the middle of rewriting the IR (the pipeliner), where a solver's
  /// results would describe ops no longer there.
  std::optional<std::pair<int64_t, int64_t>> bounds(mlir::Value v);

private:
  AxisInfo compute(mlir::Value v);
  std::optional<std::pair<int64_t, int64_t>> computeBounds(mlir::Value v);
  llvm::DenseMap<mlir::Value, std::optional<std::pair<int64_t, int64_t>>>
      boundsCache;
  /// A loop-carried block argument (an scf.for iter_arg, or a block
  /// argument that branches pass values to): the greatest fixed point of
  /// "the join of the `incoming` values' claims".
  AxisInfo fixedPoint(mlir::Value arg, llvm::ArrayRef<mlir::Value> incoming);
  llvm::DenseMap<mlir::Value, AxisInfo> cache;
  /// Cache entries in the order they were made: those made while an
  /// iter_arg's assumption stood are dropped when the assumption fails.
  llvm::SmallVector<mlir::Value> made;
  /// Values whose computation is under way (their cache entry is a
  /// placeholder), and the block arguments whose fixed point is.
  llvm::SmallVector<mlir::Value> active;
  llvm::DenseSet<mlir::Value> assuming;
};

} // namespace kiln

#endif
