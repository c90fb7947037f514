//===- SharedIndex.h - Addresses of indexed shared-memory accesses -*- C++ -*-===//
//
// The address of every register of an indices tensor in a buffer, its
// coordinate along one axis replaced by its index: what local_gather,
// local_scatter and local_atomic_rmw read and write
// (SharedIndexOpToLLVM.cpp), and the local part of a vendor's gather from
// other CTAs' buffers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CONVERSION_TILETOLLVM_SHAREDINDEX_H
#define KILN_CONVERSION_TILETOLLVM_SHAREDINDEX_H

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

namespace kiln {

/// The address of every register of `type` in `view` (converted: `base`),
/// its coordinate along `axis` replaced by `indices[r]`; `memTy` is the
/// element's type in memory. Fails (with an error at `op`) when the layouts
/// cannot be related.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
indexedAddresses(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                 mlir::Value base, mlir::Value view,
                 mlir::RankedTensorType type, llvm::ArrayRef<mlir::Value> indices,
                 unsigned axis, mlir::Type memTy, const LoweringContext &ctx);

} // namespace kiln

#endif
