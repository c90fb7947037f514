//===- IntRanges.cpp - Integer ranges of index arithmetic -----------------===//

#include "kiln/Analysis/IntRanges.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"

using namespace mlir;
using namespace kiln;

IntRanges::IntRanges(Operation *root) {
  // IntegerRangeAnalysis reads liveness from DeadCodeAnalysis, which in turn
  // needs constant propagation to decide branches.
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  ok = succeeded(solver.initializeAndRun(root));
}

std::optional<ConstantIntRanges> IntRanges::get(Value v) const {
  if (!ok)
    return std::nullopt;
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  return lattice->getValue().getValue();
}

std::optional<std::pair<int64_t, int64_t>>
IntRanges::getSigned(Value v) const {
  std::optional<ConstantIntRanges> range = get(v);
  if (!range || range->smin().getBitWidth() > 64)
    return std::nullopt;
  return std::make_pair(range->smin().getSExtValue(),
                        range->smax().getSExtValue());
}
