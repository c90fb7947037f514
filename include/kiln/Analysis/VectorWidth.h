//===- VectorWidth.h - How wide a global access may be ----------*- C++ -*-===//
//
// The one rule for how many elements a thread moves per global access (a
// load, a store, an async copy's source): the largest power of two that the
// register layout keeps in consecutive registers along one dimension, the
// addresses are contiguous and aligned for, and the mask is constant over,
// at most the target's widest access. The lowering issues accesses of this
// width; the pipeliner asks it before turning a load into an async copy.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_VECTORWIDTH_H
#define KILN_ANALYSIS_VECTORWIDTH_H

#include "kiln/Analysis/AxisInfo.h"

#include "mlir/IR/BuiltinTypes.h"

namespace kiln {

/// Width (elements) of the accesses of `type`'s layout with `bytes`-byte
/// elements whose addresses are contiguous for `contiguity` elements per
/// dimension and divisible by `byteDivisibility` bytes, masked by `mask`
/// (null: unmasked), at most `maxVectorBytes`.
unsigned getAccessVectorWidth(mlir::RankedTensorType type, int64_t bytes,
                              llvm::ArrayRef<int64_t> contiguity,
                              llvm::ArrayRef<int64_t> byteDivisibility,
                              mlir::Value mask, AxisInfoAnalysis &axisInfo,
                              unsigned maxVectorBytes);

/// The same through a tensor of global pointers `ptr`.
unsigned getPointerVectorWidth(mlir::Value ptr, mlir::Value mask,
                               AxisInfoAnalysis &axisInfo,
                               unsigned maxVectorBytes);
/// The same through a scalar `base` pointer and a tensor of element
/// `offsets` (a buffer resource's accesses), elements of `bytes` bytes.
unsigned getOffsetVectorWidth(mlir::Value base, mlir::Value offsets,
                              mlir::Value mask, int64_t bytes,
                              AxisInfoAnalysis &axisInfo,
                              unsigned maxVectorBytes);

} // namespace kiln

#endif
