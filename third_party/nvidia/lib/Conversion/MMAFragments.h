//===- MMAFragments.h - Tensor-core fragments on F2-linear layouts -*- C++ -*-===//
//
// What the mma.sync and wgmma lowerings share: finding a thread's register
// by the coordinates it holds, the mma.m16n8k16 A fragment (which wgmma's
// register operand also takes for each warp's 16 rows), and packing two
// 16-bit elements into one 32-bit instruction operand.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_NVIDIA_LIB_CONVERSION_MMAFRAGMENTS_H
#define KILN_NVIDIA_LIB_CONVERSION_MMAFRAGMENTS_H

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include <array>
#include <string>

namespace kiln {

using Coord = std::pair<int32_t, int32_t>;

/// "[r, c]", for diagnostics.
inline std::string basisText(const LinearLayout::Basis &b) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(b, os);
  os << "]";
  return s;
}

/// The register index holding each coordinate of a 2-D layout (relative to
/// the thread's lane and warp part); failure where two registers hold the
/// same element.
inline mlir::FailureOr<llvm::DenseMap<Coord, int64_t>>
registersByCoord(const LinearLayout &ll) {
  llvm::ArrayRef<LinearLayout::Basis> regs = ll.getBases(LinearLayout::Register);
  llvm::DenseMap<Coord, int64_t> regOf;
  for (int64_t i = 0, e = int64_t(1) << regs.size(); i < e; ++i) {
    int32_t r = 0, c = 0;
    for (unsigned bit = 0; bit < regs.size(); ++bit)
      if (i >> bit & 1) {
        r ^= regs[bit][0];
        c ^= regs[bit][1];
      }
    if (!regOf.try_emplace({r, c}, i).second)
      return mlir::failure();
  }
  return regOf;
}

/// Coordinates (row, k) of a0..a7 of the m16k16 A fragment whose first
/// element is (r0, k0), for the lane with row and K offsets zero.
inline std::array<Coord, 8> aFragment(int32_t r0, int32_t k0) {
  return {Coord{r0, k0},     {r0, k0 + 1},     {r0 + 8, k0},     {r0 + 8, k0 + 1},
          {r0, k0 + 8},      {r0, k0 + 9},     {r0 + 8, k0 + 8}, {r0 + 8, k0 + 9}};
}

/// Two 16-bit elements as one 32-bit operand: a 2-vector, bitcast to i32
/// where `asI32`.
inline mlir::Value packPair(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x, mlir::Value y, bool asI32) {
  auto pairTy = mlir::VectorType::get({2}, x.getType());
  mlir::Value v = mlir::LLVM::PoisonOp::create(b, loc, pairTy);
  v = mlir::LLVM::InsertElementOp::create(b, loc, v, x, i32Const(b, loc, 0));
  v = mlir::LLVM::InsertElementOp::create(b, loc, v, y, i32Const(b, loc, 1));
  if (!asI32)
    return v;
  return mlir::LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
}

/// Four 8-bit elements (registers `at` of `regs`) as one 32-bit operand,
/// the first in the low byte.
inline mlir::Value packQuad(mlir::OpBuilder &b, mlir::Location loc,
                            llvm::ArrayRef<mlir::Value> regs,
                            llvm::ArrayRef<int64_t> at) {
  auto quadTy = mlir::VectorType::get({4}, regs[at[0]].getType());
  mlir::Value v = mlir::LLVM::PoisonOp::create(b, loc, quadTy);
  for (int i = 0; i < 4; ++i)
    v = mlir::LLVM::InsertElementOp::create(b, loc, v, regs[at[i]],
                                            i32Const(b, loc, i));
  return mlir::LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
}

/// Coordinates (row, k) of a0..a15 of the m16k32 A fragment of 8-bit
/// operands whose row starts at r0, the lane-0 thread's K values being
/// `ks[0..7]` in fragment order: (r0, k0..k3) (r0+8, k0..k3) (r0, k4..k7)
/// (r0+8, k4..k7).
inline llvm::SmallVector<Coord, 16> aFragment8(int32_t r0,
                                               llvm::ArrayRef<int32_t> ks) {
  llvm::SmallVector<Coord, 16> at;
  for (int half : {0, 4})
    for (int32_t row : {r0, r0 + 8})
      for (int i = 0; i < 4; ++i)
        at.push_back({row, ks[half + i]});
  return at;
}

} // namespace kiln

#endif
