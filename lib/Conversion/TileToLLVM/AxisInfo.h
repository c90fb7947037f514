//===- AxisInfo.h - Contiguity, divisibility and constancy ------*- C++ -*-===//
//
// A small forward analysis over integer and pointer values that tells the
// load/store lowering how wide it may vectorize: per dimension, how many
// consecutive elements are contiguous, by what power of two the first of
// each contiguous group is divisible (bytes for pointers), and over how many
// consecutive elements the value is constant.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_TILETOLLVM_AXISINFO_H
#define KILN_LIB_CONVERSION_TILETOLLVM_AXISINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln {

struct AxisInfo {
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;
  llvm::SmallVector<int64_t, 4> contiguity, divisibility, constancy;

  unsigned getRank() const { return contiguity.size(); }
  /// Nothing known about a value of `rank` dimensions (1 for scalars).
  static AxisInfo unknown(unsigned rank);
};

class AxisInfoAnalysis {
public:
  AxisInfo get(mlir::Value v);

private:
  AxisInfo compute(mlir::Value v);
  llvm::DenseMap<mlir::Value, AxisInfo> cache;
};

} // namespace kiln

#endif
