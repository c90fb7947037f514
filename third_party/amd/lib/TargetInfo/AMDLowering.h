//===- AMDLowering.h - What the AMD lowering patterns share -----*- C++ -*-===//
//
// The AMD TargetInfo and the tile_amd patterns (BufferOpToLLVM.cpp,
// MFMAOpToLLVM.cpp, MFMAScaledOpToLLVM.cpp): the alias scopes of
// direct-to-LDS copies, the per-wave LDS base (M0) and each pattern's check
// before lowering.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AMD_LIB_TARGETINFO_AMDLOWERING_H
#define KILN_AMD_LIB_TARGETINFO_AMDLOWERING_H

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

namespace kiln {

class AMDLoweringHooks : public TargetInfo {
public:
  using TargetInfo::TargetInfo;

  struct Scopes {
    mlir::Attribute copies, loads;
  };
  /// The alias scopes of direct-to-LDS writes and of LDS reads that no
  /// in-flight copy can write (one pair per lowering).
  virtual Scopes scopes(mlir::MLIRContext *ctx) const = 0;
  /// The LDS base (addrspace 3, wave-uniform) of a direct-to-LDS copy whose
  /// lane writes `bytes` at `dst`: the hardware writes lane i at base + i x
  /// bytes.
  virtual mlir::Value waveLdsBase(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value dst, unsigned bytes) const = 0;
};

/// tile_amd.buffer_load / buffer_store / buffer_load_to_local.
void populateBufferOpToLLVMPatterns(TileTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const LoweringContext &ctx,
                                    const AMDLoweringHooks &hooks);
/// The rules the buffer lowering needs, with the offsets' analysis: one
/// diagnostic at the op before anything is rewritten.
mlir::LogicalResult checkBufferOps(mlir::ModuleOp module,
                                   const LoweringContext &ctx);

/// tile_amd.warp_pipeline_border.
void populateWarpPipelineToLLVMPatterns(TileTypeConverter &converter,
                                        mlir::RewritePatternSet &patterns,
                                        const LoweringContext &ctx);

/// tile_amd.mfma.
void populateMfmaOpToLLVMPatterns(TileTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  const LoweringContext &ctx);
/// The layouts of every tile_amd.mfma against its instruction's: one
/// diagnostic at the op before anything is rewritten.
mlir::LogicalResult checkMfmaLayouts(mlir::ModuleOp module);

/// tile_amd.mfma_scaled.
void populateMfmaScaledOpToLLVMPatterns(TileTypeConverter &converter,
                                        mlir::RewritePatternSet &patterns,
                                        const LoweringContext &ctx);
/// The layouts of every tile_amd.mfma_scaled (operands and scales) against
/// its instruction's: one diagnostic at the op before anything is rewritten.
mlir::LogicalResult checkMfmaScaledLayouts(mlir::ModuleOp module);

/// ROCm's device printf of `format` with `args` (i32, i64, f64 or pointers)
/// from this thread: calls of the ROCm device libraries' ockl
/// (AMDPrintf.cpp).
void emitOcklPrintf(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::StringRef format, mlir::ArrayRef<mlir::Value> args);

} // namespace kiln

#endif
