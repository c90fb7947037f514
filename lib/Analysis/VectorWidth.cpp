//===- VectorWidth.cpp - How wide a global access may be ------------------===//

#include "kiln/Analysis/VectorWidth.h"

#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/Dialect/Tile/IR/LinearLayout.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

unsigned kiln::getPointerVectorWidth(Value ptr, Value mask,
                                     AxisInfoAnalysis &axisInfo,
                                     unsigned maxVectorBytes) {
  auto ty = cast<RankedTensorType>(ptr.getType());
  Type pointee = cast<PointerType>(ty.getElementType()).getPointeeType();
  AxisInfo info = axisInfo.get(ptr);
  return getAccessVectorWidth(ty, getElementBytes(pointee), info.contiguity,
                              info.divisibility, mask, axisInfo,
                              maxVectorBytes);
}

unsigned kiln::getOffsetVectorWidth(Value base, Value offsets, Value mask,
                                    int64_t bytes, AxisInfoAnalysis &axisInfo,
                                    unsigned maxVectorBytes) {
  auto type = cast<RankedTensorType>(offsets.getType());
  AxisInfo off = axisInfo.get(offsets);
  int64_t baseDiv = axisInfo.get(base).divisibility[0];
  SmallVector<int64_t> byteDiv;
  for (int64_t d : off.divisibility)
    byteDiv.push_back(std::min(baseDiv, d >= AxisInfo::kMaxDivisibility
                                            ? baseDiv
                                            : d * bytes));
  return getAccessVectorWidth(type, bytes, off.contiguity, byteDiv, mask,
                              axisInfo, maxVectorBytes);
}

unsigned kiln::getAccessVectorWidth(RankedTensorType ty, int64_t bytes,
                                    ArrayRef<int64_t> contiguity,
                                    ArrayRef<int64_t> byteDivisibility,
                                    Value mask, AxisInfoAnalysis &axisInfo,
                                    unsigned maxVectorBytes) {
  FailureOr<LinearLayout> ll = getLinearLayout(ty);
  if (failed(ll) || ll->getNumBits(LinearLayout::Register) == 0)
    return 1;
  // The dimension register 1 moves along.
  const auto &b0 = ll->getBases(LinearLayout::Register)[0];
  int dim = -1;
  for (unsigned k = 0; k < b0.size(); ++k)
    if (b0[k] == 1 && dim < 0)
      dim = k;
    else if (b0[k] != 0)
      return 1;
  if (dim < 0)
    return 1;
  int64_t vec = ll->getContiguousRegs(dim);
  vec = std::min<int64_t>(vec, contiguity[dim]);
  vec = std::min<int64_t>(vec, std::max<int64_t>(1, byteDivisibility[dim] / bytes));
  vec = std::min<int64_t>(vec, maxVectorBytes / bytes);
  if (mask)
    vec = std::min<int64_t>(vec, axisInfo.get(mask).constancy[dim]);
  vec = vec >= 1 ? int64_t(1) << llvm::Log2_64(vec) : 1;
  // Every other basis must keep each vector aligned along `dim`.
  auto aligned = [&](int64_t v) {
    unsigned skip = llvm::Log2_64(v);
    for (unsigned d = 0; d < LinearLayout::kNumInDims; ++d)
      for (auto [i, b] : llvm::enumerate(ll->getBases(LinearLayout::InDim(d))))
        if (!(d == LinearLayout::Register && i < skip) && b[dim] % v != 0)
          return false;
    return true;
  };
  while (vec > 1 && !aligned(vec))
    vec /= 2;
  return vec;
}
