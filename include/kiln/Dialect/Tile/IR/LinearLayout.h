//===- LinearLayout.h - F2-linear register layouts --------------*- C++ -*-===//
//
// The one general form of Kiln's distributed layouts. A layout maps the bits
// of a (register, lane, warp) index to tensor coordinates: each input bit has
// a basis vector, and the coordinates of an element are the XOR of the bases
// of the set bits. Blocked and slice layouts are converted to this form, and
// the lowering only reads this form.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILE_IR_LINEARLAYOUT_H
#define KILN_DIALECT_TILE_IR_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <array>
#include <string>

namespace kiln {

class LinearLayout {
public:
  enum InDim : unsigned { Register = 0, Lane = 1, Warp = 2 };
  static constexpr unsigned kNumInDims = 3;
  using Basis = llvm::SmallVector<int32_t, 4>;
  /// Most input bits per dimension: 2^11 registers per thread (Gluon's
  /// dot3d_fma test holds 2,048 operand elements a thread; compile time
  /// grows faster than linearly past 1,024, and a target may lower this:
  /// TargetDesc::maxTensorRegisters), 64 lanes, 32 warps.
  static constexpr unsigned kMaxInBits[] = {11, 6, 5};
  static constexpr const char *kInDimNames[] = {"register", "lane", "warp"};
  using Bases = llvm::SmallVector<Basis, 8>;

  LinearLayout() = default;
  /// `outSizes` are the (power of two) sizes of the tensor dimensions.
  LinearLayout(std::array<Bases, kNumInDims> bases,
               llvm::ArrayRef<int32_t> outSizes)
      : bases(std::move(bases)), outSizes(outSizes) {}

  unsigned getRank() const { return outSizes.size(); }
  llvm::ArrayRef<int32_t> getOutSizes() const { return outSizes; }
  llvm::ArrayRef<Basis> getBases(InDim d) const { return bases[d]; }
  unsigned getNumBits(InDim d) const { return bases[d].size(); }
  int64_t getInSize(InDim d) const { return int64_t(1) << bases[d].size(); }
  int64_t getNumElements() const;

  /// Coordinates of input index `idx` along one input dimension alone.
  Basis applyOne(InDim d, int32_t idx) const;
  /// Coordinates of the element held by (reg, lane, warp).
  Basis apply(int32_t reg, int32_t lane, int32_t warp) const;

  /// Rank over F2 of all bases together; the layout reaches 2^rank elements.
  unsigned getSpanRank() const;
  /// True when every element of the output shape is reached.
  bool isSurjective() const;

  /// Drops output dimension `dim`; register bases that become zero are
  /// removed (those registers would only repeat others).
  LinearLayout removeOutDim(unsigned dim) const;
  /// Row-major reinterpretation of the output space with `newSizes`.
  LinearLayout reshapeOuts(llvm::ArrayRef<int32_t> newSizes) const;
  /// Row-major linear index of coordinates.
  int64_t linearIndex(llvm::ArrayRef<int32_t> coords) const;

  /// Number of leading registers that hold consecutive elements along `dim`
  /// (register basis i is 2^i along `dim` for every i below log2 of it).
  unsigned getContiguousRegs(unsigned dim) const;

  bool operator==(const LinearLayout &o) const {
    return bases == o.bases && outSizes == o.outSizes;
  }
  bool operator!=(const LinearLayout &o) const { return !(*this == o); }

  void print(llvm::raw_ostream &os) const;
  std::string str() const;

  /// Gluon's BlockedLayout for a tensor of `shape` (powers of two). Bits of
  /// each dimension are filled by registers, then lanes, then warps, then more
  /// registers; lanes and warps past the shape get zero bases (broadcast).
  static LinearLayout
  fromBlocked(llvm::ArrayRef<unsigned> sizePerThread,
              llvm::ArrayRef<unsigned> threadsPerWarp,
              llvm::ArrayRef<unsigned> warpsPerCTA,
              llvm::ArrayRef<unsigned> order, llvm::ArrayRef<int64_t> shape);

private:
  std::array<Bases, kNumInDims> bases;
  llvm::SmallVector<int32_t, 4> outSizes;
};

llvm::hash_code hash_value(const LinearLayout &layout);

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const LinearLayout &l) {
  l.print(os);
  return os;
}

} // namespace kiln

#endif // KILN_DIALECT_TILE_IR_LINEARLAYOUT_H
