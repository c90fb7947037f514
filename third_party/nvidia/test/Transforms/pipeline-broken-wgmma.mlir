// RUN: not kiln-opt %s --tile-check-async-safety -o /dev/null 2>&1 | FileCheck %s

// A cp.async ring tile-pipeline-expand made for a wgmma loop (3 stages,
// consumers first), after tile-nv-pipeline-wgmma, broken on purpose: the wgmma
// wait leaves 2 groups in flight instead of 1, so the copies of iteration i
// refill the slot the wgmma of i-1 may still be reading (tile-nv-pipeline-wgmma.mlir
// has the correct loop, which the check passes).
// CHECK: error: 'tile.async_copy_global_to_local' writes a shared buffer that the asynchronous read of 'tile_nv.warpgroup_dot' may still be reading

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tile.slice<{dim = 1, parent = #blocked}>
#slice1 = #tile.slice<{dim = 0, parent = #blocked}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @gemm(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg2: i32) -> tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>> {
    %0 = tile.arange 0, 64 : tensor<64xi32, #slice>
    %1 = tile.arange 0, 64 : tensor<64xi32, #slice1>
    %2 = tile.expand_dims %0 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked>
    %3 = tile.expand_dims %1 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %cst = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %4 = arith.muli %2, %cst : tensor<64x1xi32, #blocked>
    %5 = tile.broadcast %4 : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %6 = tile.broadcast %3 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %7 = arith.addi %5, %6 : tensor<64x64xi32, #blocked>
    %8 = tile.splat %arg0 : tensor<64x64x!tile.ptr<bf16>, #blocked>
    %9 = tile.splat %arg1 : tensor<64x64x!tile.ptr<bf16>, #blocked>
    %10 = tile.addptr %8, %7 : tensor<64x64x!tile.ptr<bf16>, #blocked>, tensor<64x64xi32, #blocked>
    %11 = tile.addptr %9, %7 : tensor<64x64x!tile.ptr<bf16>, #blocked>, tensor<64x64xi32, #blocked>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
    %c3_i32 = arith.constant 3 : i32
    %12 = tile.local_alloc : () -> !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    %13 = tile.local_alloc : () -> !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    %c0_i32_1 = arith.constant 0 : i32
    %14 = arith.cmpi sgt, %arg2, %c0_i32_1 : i32
    %c0_i32_2 = arith.constant 0 : i32
    %15 = tile.memdesc_index %12[%c0_i32_2] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %16 = tile.splat %14 : tensor<64x64xi1, #blocked>
    %17 = tile.async_copy_global_to_local %10, %15, %16 {tile.pipeline_part = "prologue"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %18 = tile.memdesc_index %13[%c0_i32_2] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %19 = tile.splat %14 : tensor<64x64xi1, #blocked>
    %20 = tile.async_copy_global_to_local %11, %18, %19 {tile.pipeline_part = "prologue"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %21 = tile.async_commit_group tokens %17, %20 {tile.pipeline_part = "prologue"}
    %22 = arith.cmpi sgt, %arg2, %c1_i32 : i32
    %c1_i32_3 = arith.constant 1 : i32
    %23 = tile.memdesc_index %12[%c1_i32_3] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %24 = tile.splat %22 : tensor<64x64xi1, #blocked>
    %25 = tile.async_copy_global_to_local %10, %23, %24 {tile.pipeline_part = "prologue"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %26 = tile.memdesc_index %13[%c1_i32_3] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %27 = tile.splat %22 : tensor<64x64xi1, #blocked>
    %28 = tile.async_copy_global_to_local %11, %26, %27 {tile.pipeline_part = "prologue"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %29 = tile.async_commit_group tokens %25, %28 {tile.pipeline_part = "prologue"}
    %30:3 = scf.for %arg3 = %c0_i32 to %arg2 step %c1_i32 iter_args(%arg4 = %cst_0, %arg5 = %21, %arg6 = %29) -> (tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>, !tile.async_token, !tile.async_token)  : i32 {
      %c2_i32 = arith.constant 2 : i32
      %33 = arith.subi %arg2, %c2_i32 : i32
      %34 = arith.cmpi slt, %arg3, %33 : i32
      %35 = arith.remsi %arg3, %c3_i32 : i32
      %36 = tile.async_wait tokens %arg5 {num = 1 : i32, tile.pipeline_part = "kernel"}
      tile_nv.fence_async_shared
      %37 = tile.memdesc_index %13[%35] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %38 = tile.memdesc_permute %37 {order = array<i32: 1, 0>} : !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable, 3x64x64>
      %39 = tile.memdesc_index %12[%35] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %40 = tile_nv.warpgroup_dot %39, %38, %arg4 {isAsync} : !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>, !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable, 3x64x64> -> tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
      %41 = tile_nv.warpgroup_dot_wait %40 {pendings = 2 : i32} : (tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>) -> tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
      %c2_i32_4 = arith.constant 2 : i32
      %42 = arith.addi %arg3, %c2_i32_4 : i32
      %43 = arith.remsi %42, %c3_i32 : i32
      %44 = tile.memdesc_index %12[%43] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %45 = tile.splat %34 : tensor<64x64xi1, #blocked>
      %46 = tile.async_copy_global_to_local %10, %44, %45 {tile.pipeline_part = "kernel"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %47 = tile.memdesc_index %13[%43] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %48 = tile.splat %34 : tensor<64x64xi1, #blocked>
      %49 = tile.async_copy_global_to_local %11, %47, %48 {tile.pipeline_part = "kernel"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %50 = tile.async_commit_group tokens %46, %49 {tile.pipeline_part = "kernel"}
      scf.yield %41, %arg6, %50 : tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>, !tile.async_token, !tile.async_token
    }
    %31 = tile_nv.warpgroup_dot_wait %30#0 {pendings = 0 : i32} : (tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>) -> tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
    %32 = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %12 : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    tile.local_dealloc %13 : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    return %31 : tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
  }
}

