//===- SharedIndex.h - Addresses of indexed shared-memory accesses -*- C++ -*-===//
//
// The address of every register of an indices tensor in a buffer, its
// coordinate along one axis replaced by its index: what local_gather,
// local_scatter and local_atomic_rmw read and write
// (SharedIndexOpToLLVM.cpp), and the gathers and scatters built on them,
// a vendor's into other CTAs' buffers too (an address remap).
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

/// The same with several axes' coordinates replaced, `indices[i]` (one value
/// a register) along `axes[i]`; all of them: every coordinate given.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
indexedAddresses(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                 mlir::Value base, mlir::Value view,
                 mlir::RankedTensorType type, llvm::ArrayRef<unsigned> axes,
                 llvm::ArrayRef<llvm::SmallVector<mlir::Value>> indices,
                 mlir::Type memTy, const LoweringContext &ctx);

/// The same with each axis's indices given as a converted tensor (a struct
/// of one value a register).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
indexedAddresses(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                 mlir::Value base, mlir::Value view,
                 mlir::RankedTensorType type, llvm::ArrayRef<unsigned> axes,
                 mlir::ValueRange indexStructs, mlir::Type memTy,
                 const LoweringContext &ctx);

/// local_gather's result: each register loaded at its address in `view`
/// (converted: `base`), passed first through `remap(register, address)`
/// where given (a vendor's move to another CTA's buffer).
mlir::FailureOr<mlir::Value> lowerIndexedGather(
    mlir::ConversionPatternRewriter &rewriter, mlir::Operation *op,
    mlir::Value base, mlir::Value view, mlir::ValueRange indexStructs,
    llvm::ArrayRef<unsigned> axes, mlir::RankedTensorType indicesType,
    mlir::RankedTensorType resultType, const mlir::TypeConverter &converter,
    const LoweringContext &ctx,
    llvm::function_ref<mlir::Value(unsigned, mlir::Value)> remap = nullptr);

/// local_scatter's stores of `valuesStruct`, addresses as lowerIndexedGather's
/// (`indexStructs[i]` along `axes[i]`).
mlir::LogicalResult lowerIndexedScatter(
    mlir::ConversionPatternRewriter &rewriter, mlir::Operation *op,
    mlir::Value base, mlir::Value view, mlir::Value valuesStruct,
    mlir::RankedTensorType valuesType, mlir::ValueRange indexStructs,
    llvm::ArrayRef<unsigned> axes, const mlir::TypeConverter &converter,
    const LoweringContext &ctx,
    llvm::function_ref<mlir::Value(unsigned, mlir::Value)> remap = nullptr);

} // namespace kiln

#endif
