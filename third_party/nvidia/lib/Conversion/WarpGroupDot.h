//===- WarpGroupDot.h - How a warpgroup_dot maps to wgmma ------*- C++ -*-===//
#ifndef KILN_NVIDIA_LIB_CONVERSION_WARPGROUPDOT_H
#define KILN_NVIDIA_LIB_CONVERSION_WARPGROUPDOT_H

#include "kiln/Dialect/TileNV/IR/Dialect.h"

namespace kiln {

/// The instructions of one warpgroup: instrM x instrNCount tiles of
/// m64 x n`instrN`; `registers` lists, tile by tile (M-major), the
/// accumulator register index of each instruction register; `groupBases`
/// is the (rows, cols) move of each warpgroup bit. Where `a` is held in
/// registers, `aRegisters[mi * kSteps + s]` lists the register of `a` of
/// each element of the A fragment of row tile mi and K step s (PTX order:
/// a0..a7 of 16-bit types, pairs packed by the caller; a0..a15 of 8-bit
/// ones, fours packed).
struct WarpGroupDotPlan {
  int64_t instrN = 0, instrM = 0, instrNCount = 0;
  /// K of one instruction: 32 bytes of the operands' type.
  int64_t instrK = 16;
  /// Where instruction tile (mi, ni) starts in warpgroup 0's part of the
  /// accumulator: row rowOrigins[mi], column colOrigins[ni].
  llvm::SmallVector<int32_t> rowOrigins, colOrigins;
  /// The rows of a (M) and b (N) where any warpgroup's instruction starts.
  llvm::SmallVector<int64_t> rowStarts, colStarts;
  llvm::SmallVector<int64_t> registers;
  llvm::SmallVector<std::pair<int32_t, int32_t>> groupBases;
  llvm::SmallVector<llvm::SmallVector<int64_t, 16>> aRegisters;
};

/// Checks the op against what wgmma can do with `numWarps` warps (the
/// accumulator layout, the operand layouts); a diagnostic at the op on
/// failure.
mlir::FailureOr<WarpGroupDotPlan> planWarpGroupDot(tile_nv::WarpGroupDotOp op,
                                                   unsigned numWarps);

/// wgmma.wait_group `pendings` with `regs` tied through it.
llvm::SmallVector<mlir::Value> waitGroup(mlir::OpBuilder &b, mlir::Location loc,
                                         int64_t pendings,
                                         llvm::ArrayRef<mlir::Value> regs);

} // namespace kiln

#endif
