//===- IntRanges.h - Integer ranges of index arithmetic ---------*- C++ -*-===//
//
// Bounds on the integer values of a function, for passes that must prove an
// offset in range before using a narrower addressing form. It runs upstream
// IntegerRangeAnalysis (arith, scf loop bounds) with the dead-code and
// constant analyses it depends on; the tile ops take part through their
// InferIntRangeInterface (lib/Dialect/Tile/IR/IntRanges.cpp). A tensor's
// range bounds every element. A kernel argument starts from what the
// `tile.assume`s at the top level of its function promise (comparisons with
// constants, and their conjunctions).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ANALYSIS_INTRANGES_H
#define KILN_ANALYSIS_INTRANGES_H

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"

#include <optional>

namespace kiln {

class IntRanges {
public:
  /// Analyzes everything nested in `root`; a failure of the solver leaves
  /// every value unknown.
  explicit IntRanges(mlir::Operation *root);

  /// The range of `v`, or nullopt where the analysis knows nothing (an
  /// unbounded input, a non-integer value, code it did not reach).
  std::optional<mlir::ConstantIntRanges> get(mlir::Value v) const;

  /// The signed bounds of `v` widened to 64 bits, or nullopt.
  std::optional<std::pair<int64_t, int64_t>> getSigned(mlir::Value v) const;

private:
  mlir::DataFlowSolver solver;
  llvm::DenseMap<mlir::Value, mlir::ConstantIntRanges> promised;
  bool ok = false;
};

} // namespace kiln

#endif // KILN_ANALYSIS_INTRANGES_H
