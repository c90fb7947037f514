//===- IntRanges.cpp - Integer ranges of tile ops -------------------------===//
//
// InferIntRangeInterface for the tile ops index arithmetic flows through, so
// that upstream IntegerRangeAnalysis (which already knows arith and scf) can
// bound the offsets a kernel computes: program ids, ranges, and the ops that
// only move or repeat elements. A tensor's range is the range of all its
// elements. Ops over non-integer elements (pointers, floats) have none; the
// analysis leaves them at "unknown".
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

constexpr int64_t kMaxGridAxis = (int64_t(1) << 31) - 1;

ConstantIntRanges signedRange(Type type, int64_t lo, int64_t hi) {
  unsigned width = ConstantIntRanges::getStorageBitwidth(type);
  return ConstantIntRanges::fromSigned(APInt(width, lo, /*isSigned=*/true),
                                       APInt(width, hi, /*isSigned=*/true));
}

/// The result holds only elements of the (single) source: same range.
void forwardRange(Value result, ArrayRef<ConstantIntRanges> argRanges,
                  SetIntRangeFn setResultRange) {
  if (!argRanges.empty() &&
      isa<IntegerType, IndexType>(getElementTypeOrSelf(result.getType())))
    setResultRange(result, argRanges.front());
}

} // namespace

void ProgramIdOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                    SetIntRangeFn setResultRange) {
  // A grid axis has at most 2^31 - 1 programs (the launcher refuses more).
  setResultRange(getResult(),
                 signedRange(getType(), 0, kMaxGridAxis - 1));
}

void NumProgramsOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                      SetIntRangeFn setResultRange) {
  setResultRange(getResult(), signedRange(getType(), 1, kMaxGridAxis));
}

void ArangeOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                 SetIntRangeFn setResultRange) {
  // I32Attr accessors return unsigned; ranges may start below zero.
  int64_t start = static_cast<int32_t>(getStart());
  int64_t end = static_cast<int32_t>(getEnd());
  setResultRange(getResult(),
                 signedRange(getType().getElementType(), start, end - 1));
}

void SplatOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                                SetIntRangeFn setResultRange) {
  forwardRange(getResult(), argRanges, setResultRange);
}

void BroadcastOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                                    SetIntRangeFn setResultRange) {
  forwardRange(getResult(), argRanges, setResultRange);
}

void ExpandDimsOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                                     SetIntRangeFn setResultRange) {
  forwardRange(getResult(), argRanges, setResultRange);
}

void ReshapeOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                                  SetIntRangeFn setResultRange) {
  forwardRange(getResult(), argRanges, setResultRange);
}

void HintOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                               SetIntRangeFn setResultRange) {
  forwardRange(getResult(), argRanges, setResultRange);
}

void ConvertLayoutOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                                        SetIntRangeFn setResultRange) {
  forwardRange(getResult(), argRanges, setResultRange);
}
