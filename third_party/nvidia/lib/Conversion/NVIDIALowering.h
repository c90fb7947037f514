//===- NVIDIALowering.h - The tile_nv lowering patterns ---------*- C++ -*-===//
#ifndef KILN_NVIDIA_LIB_CONVERSION_NVIDIALOWERING_H
#define KILN_NVIDIA_LIB_CONVERSION_NVIDIALOWERING_H

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"
#include "kiln/Dialect/TileNV/IR/Dialect.h"

namespace kiln {

/// Whether this thread is the one that issues the CTA's TMA copies and
/// mbarrier arrivals: the thread elect.sync picks in warp 0 (the warp index
/// of warpIdAtEntry, uniform to the compiler, so it issues the copy from
/// uniform registers, without a loop over lanes).
/// When the code around `op` has one warp (a 1-warp partition of a
/// tile.warp_specialize), elect.sync alone decides, and the compiler knows
/// exactly one lane issues. `laneZero`: lane 0 instead of elect.sync (a
/// pure %laneid test the compiler hoists out of loops; the mbarrier ops'
/// choice, as TMA copies keep elect.sync).
mlir::Value isElectedThread(mlir::OpBuilder &b, mlir::Operation *op,
                            const LoweringContext &ctx, bool laneZero = false);

/// Byte offsets from `buffer`'s slot base of the TMA boxes copying `desc`'s
/// block (one per swizzle chunk of its rows). A subslice is checked element
/// by element against the hardware's absolute-address swizzle; a diagnostic
/// at `op` names the rule when a box would land elsewhere.
mlir::FailureOr<llvm::SmallVector<int64_t>>
getTMABoxOffsets(mlir::Operation *op, mlir::Value buffer,
                 tile::TensorDescType desc);

/// Checks, before lowering, that a tile_nv.make_tensor_descriptor's block can
/// be described on the device; a diagnostic at the op otherwise.
mlir::LogicalResult checkMakeTensorDescriptor(tile_nv::MakeTensorDescriptorOp op);

/// tile_nv.mbarrier_init / invalidate / expect / arrive / wait.
void populateMBarrierOpToLLVMPatterns(TileTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      const LoweringContext &ctx);

/// tile_nv.async_tma_copy_global_to_local / local_to_global /
/// async_tma_store_wait, tile_nv.fence_async_shared.
void populateTMAOpToLLVMPatterns(TileTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 const LoweringContext &ctx);

/// tile_nv.async_shared_store (st.async).
void populateAsyncSharedStoreOpToLLVMPatterns(TileTypeConverter &converter,
                                              mlir::RewritePatternSet &patterns,
                                              const LoweringContext &ctx);

/// tile_nv.atomic_load / atomic_store (OrderedOpToLLVM.cpp).
void populateOrderedOpToLLVMPatterns(TileTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     const LoweringContext &ctx);

/// tile_nv.cluster_arrive / cluster_wait / fence_mbarrier_init_cluster.
void populateClusterOpToLLVMPatterns(TileTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     const LoweringContext &ctx);

/// Checks that a tile_nv.named_barrier_sync / _arrive's barrier is not one
/// of those Kiln uses for the kernel's warp_specialize; a diagnostic at the op
/// on failure (success for other ops).
mlir::LogicalResult checkNamedBarrier(mlir::Operation *op);

/// tile_nv.named_barrier_sync / named_barrier_arrive.
void populateNamedBarrierOpToLLVMPatterns(TileTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns,
                                          const LoweringContext &ctx);

/// tile_nv.warpgroup_dot / warpgroup_dot_wait.
void populateWarpGroupDotOpToLLVMPatterns(TileTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns,
                                          const LoweringContext &ctx);

/// Checks that the layouts of a tile_nv.mma_v2 place the elements where
/// mma.sync has them; a diagnostic at the op on failure.
mlir::LogicalResult checkMMAv2Layouts(tile_nv::MMAv2Op op);

/// tile_nv.mma_v2.
/// math.erf (f32) as a call of libdevice's __nv_erff (LibdeviceMathToLLVM).
void populateLibdeviceMathPatterns(TileTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
void populateMMAv2OpToLLVMPatterns(TileTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   const LoweringContext &ctx);

} // namespace kiln

#endif
