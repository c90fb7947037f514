//===- MFMAAccumulator.h - The accumulator side of mfma lowerings -*- C++ -*-===//
//
// What tile_amd.mfma and tile_amd.mfma_scaled share: the accumulator's
// layout checked against the instruction's output lanes, and its registers
// cut into the instruction's M x N blocks.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AMD_LIB_CONVERSION_MFMAACCUMULATOR_H
#define KILN_AMD_LIB_CONVERSION_MFMAACCUMULATOR_H

#include "kiln/Dialect/Tile/IR/LinearLayout.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace kiln::mfma {

using Coord = llvm::SmallVector<int32_t>;

std::string basisText(llvm::ArrayRef<int32_t> b);

/// Reports "<what>'s layout is not the mfma one: <why>" at the op.
using FailFn =
    llvm::function_ref<mlir::LogicalResult(llvm::StringRef, const llvm::Twine &)>;

/// One M x N block of the accumulator a thread's registers start: its
/// origin and its registers in the instruction's register order.
struct AccBlock {
  int32_t r0, c0;
  llvm::SmallVector<int64_t> d;
};

/// The accumulator blocks of an m x n instruction (transposed: rows and
/// columns swapped) in register order, after checking the layout's lanes are
/// the instruction's: the first log2(N) lane bits along N, the rest `height`,
/// 2 `height`, ... rows down (a lane holds `height` consecutive rows: 4, or 1
/// for f64). `shape` may be smaller than the block (a broadcast).
mlir::FailureOr<llvm::SmallVector<AccBlock>>
planAccumulator(const LinearLayout &lc, llvm::ArrayRef<int64_t> shape,
                int32_t m, int32_t n, bool transposed, FailFn fail,
                int32_t height = 4);

} // namespace kiln::mfma

#endif
