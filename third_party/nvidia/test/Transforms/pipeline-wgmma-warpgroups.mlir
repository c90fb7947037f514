// RUN: kiln-opt %s --tile-check-async-safety -o /dev/null
// RUN: sed '/tile.barrier$/d' %s | not kiln-opt - --tile-check-async-safety -o /dev/null 2>&1 | FileCheck %s
// RUN: sed -e '/tile.barrier$/d' -e 's/, tile.pipeline_part = "[a-z]*"//' -e 's/ {tile.pipeline_part = "[a-z]*"}//' %s | kiln-opt - --tile-check-async-safety -o /dev/null 2>&1 | FileCheck %s --check-prefix=USER --allow-empty
// RUN: sed -e '/tile.barrier$/d' %s | kiln-opt - --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=BAR

// A wgmma ring for 8 warps (two warpgroups), as the pipeliner builds it
// (examples/pipelined.py wgmma_gemm_kernel, BM=128, BN=64, BK=64, 3 stages;
// the IR after tile-insert-wait-counts). Each warpgroup's
// warpgroup_dot_wait(1) retires only its own wgmma of the last iteration:
// the other warpgroup's may still read the slot this iteration's copies
// refill, so tile-nv-pipeline-wgmma puts a CTA barrier after the wait. The
// check passes the ring as built; without that barrier (the second RUN
// line deletes it) both refills are errors. The same ring written by hand
// (no pipeline_part tags: the third RUN line) is not reported: Gluon kernels
// written for one warpgroup and run with two have this race, and
// tile-insert-barriers, after the check, orders it (the fourth RUN line: it
// puts the barrier between the wait and the refill).
// USER-NOT: error
// USER-NOT: warning
// BAR: tile_nv.warpgroup_dot_wait %{{.*}} {pendings = 1 : i32}
// BAR-NEXT: tile.barrier
// BAR-NEXT: tile.async_copy_global_to_local
// CHECK: error: 'tile.async_copy_global_to_local' writes a shared buffer that the asynchronous read of 'tile_nv.warpgroup_dot' by another group of 4 warps may still be reading: a wait on the 'wgmma' counter retires only its own group's reads, and no CTA barrier comes after the waits, before this write
// CHECK: error: 'tile.async_copy_global_to_local' writes a shared buffer that the asynchronous read of 'tile_nv.warpgroup_dot' by another group of 4 warps

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#slice = #tile.slice<{dim = 1, parent = #blocked}>
#slice1 = #tile.slice<{dim = 0, parent = #blocked}>
module attributes {tile.num_warps = 8 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @wgmma_gemm_kernel(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32) {
    %c8_i32 = arith.constant 8 : i32
    %0 = arith.divsi %arg5, %c8_i32 : i32
    %c8_i32_0 = arith.constant 8 : i32
    %1 = arith.muli %0, %c8_i32_0 : i32
    %c8_i32_1 = arith.constant 8 : i32
    %2 = arith.divsi %arg6, %c8_i32_1 : i32
    %c8_i32_2 = arith.constant 8 : i32
    %3 = arith.muli %2, %c8_i32_2 : i32
    %c8_i32_3 = arith.constant 8 : i32
    %4 = arith.divsi %arg7, %c8_i32_3 : i32
    %c8_i32_4 = arith.constant 8 : i32
    %5 = arith.muli %4, %c8_i32_4 : i32
    %c8_i32_5 = arith.constant 8 : i32
    %6 = arith.divsi %arg8, %c8_i32_5 : i32
    %c8_i32_6 = arith.constant 8 : i32
    %7 = arith.muli %6, %c8_i32_6 : i32
    %8 = tile.program_id 0
    %c128_i32 = arith.constant 128 : i32
    %9 = arith.muli %8, %c128_i32 : i32
    %10 = tile.arange 0, 128 : tensor<128xi32, #slice>
    %11 = tile.splat %9 : tensor<128xi32, #slice>
    %12 = arith.addi %11, %10 : tensor<128xi32, #slice>
    %13 = tile.program_id 1
    %c64_i32 = arith.constant 64 : i32
    %14 = arith.muli %13, %c64_i32 : i32
    %15 = tile.arange 0, 64 : tensor<64xi32, #slice>
    %16 = tile.splat %14 : tensor<64xi32, #slice>
    %17 = arith.addi %16, %15 : tensor<64xi32, #slice>
    %18 = tile.arange 0, 64 : tensor<64xi32, #slice1>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32_7 = arith.constant 64 : i32
    %19 = arith.subi %1, %c0_i32 : i32
    %c1_i32 = arith.constant 1 : i32
    %20 = arith.subi %c64_i32_7, %c1_i32 : i32
    %21 = arith.addi %19, %20 : i32
    %c0_i32_8 = arith.constant 0 : i32
    %22 = arith.divsi %21, %c64_i32_7 : i32
    %23 = arith.maxsi %22, %c0_i32_8 : i32
    %c0_i32_9 = arith.constant 0 : i32
    %c1_i32_10 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    %24 = tile.local_alloc : () -> !tile.memdesc<3x128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    %25 = tile.local_alloc : () -> !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    %c0_i32_11 = arith.constant 0 : i32
    %26 = arith.cmpi sgt, %23, %c0_i32_11 : i32
    %c0_i32_12 = arith.constant 0 : i32
    %c0_i32_13 = arith.constant 0 : i32
    %27 = tile.expand_dims %18 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %28 = tile.splat %c0_i32_13 : tensor<1x64xi32, #blocked>
    %29 = arith.addi %28, %27 : tensor<1x64xi32, #blocked>
    %30 = tile.splat %1 : tensor<1x64xi32, #blocked>
    %31 = arith.cmpi slt, %29, %30 : tensor<1x64xi32, #blocked>
    %32 = tile.expand_dims %12 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %33 = tile.splat %3 : tensor<128x1xi32, #blocked>
    %34 = arith.muli %32, %33 : tensor<128x1xi32, #blocked>
    %35 = tile.splat %arg0 : tensor<128x1x!tile.ptr<bf16>, #blocked>
    %36 = tile.addptr %35, %34 : tensor<128x1x!tile.ptr<bf16>, #blocked>, tensor<128x1xi32, #blocked>
    %37 = tile.expand_dims %18 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %38 = tile.splat %c0_i32_13 : tensor<1x64xi32, #blocked>
    %39 = arith.addi %38, %37 : tensor<1x64xi32, #blocked>
    %40 = tile.broadcast %36 : tensor<128x1x!tile.ptr<bf16>, #blocked> -> tensor<128x64x!tile.ptr<bf16>, #blocked>
    %41 = tile.broadcast %39 : tensor<1x64xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %42 = tile.addptr %40, %41 : tensor<128x64x!tile.ptr<bf16>, #blocked>, tensor<128x64xi32, #blocked>
    %43 = tile.expand_dims %12 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %44 = tile.splat %arg3 : tensor<128x1xi32, #blocked>
    %45 = arith.cmpi slt, %43, %44 : tensor<128x1xi32, #blocked>
    %46 = tile.broadcast %45 : tensor<128x1xi1, #blocked> -> tensor<128x64xi1, #blocked>
    %47 = tile.splat %26 : tensor<1x64xi1, #blocked>
    %48 = arith.andi %31, %47 : tensor<1x64xi1, #blocked>
    %49 = tile.broadcast %48 : tensor<1x64xi1, #blocked> -> tensor<128x64xi1, #blocked>
    %50 = arith.andi %46, %49 : tensor<128x64xi1, #blocked>
    %51 = tile.memdesc_index %24[%c0_i32_12] : !tile.memdesc<3x128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x128x64>
    %52 = tile.expand_dims %17 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked>
    %53 = tile.splat %5 : tensor<64x1xi32, #blocked>
    %54 = arith.muli %52, %53 : tensor<64x1xi32, #blocked>
    %55 = tile.splat %arg1 : tensor<64x1x!tile.ptr<bf16>, #blocked>
    %56 = tile.addptr %55, %54 : tensor<64x1x!tile.ptr<bf16>, #blocked>, tensor<64x1xi32, #blocked>
    %57 = tile.expand_dims %18 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %58 = tile.splat %c0_i32_13 : tensor<1x64xi32, #blocked>
    %59 = arith.addi %58, %57 : tensor<1x64xi32, #blocked>
    %60 = tile.broadcast %56 : tensor<64x1x!tile.ptr<bf16>, #blocked> -> tensor<64x64x!tile.ptr<bf16>, #blocked>
    %61 = tile.broadcast %59 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %62 = tile.addptr %60, %61 : tensor<64x64x!tile.ptr<bf16>, #blocked>, tensor<64x64xi32, #blocked>
    %63 = tile.expand_dims %17 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked>
    %64 = tile.splat %arg4 : tensor<64x1xi32, #blocked>
    %65 = arith.cmpi slt, %63, %64 : tensor<64x1xi32, #blocked>
    %66 = tile.broadcast %65 : tensor<64x1xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %67 = tile.splat %26 : tensor<1x64xi1, #blocked>
    %68 = arith.andi %31, %67 : tensor<1x64xi1, #blocked>
    %69 = tile.broadcast %68 : tensor<1x64xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %70 = arith.andi %66, %69 : tensor<64x64xi1, #blocked>
    %71 = tile.memdesc_index %25[%c0_i32_12] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %72 = tile.async_copy_global_to_local %42, %51, %50 {tile.pipeline_part = "prologue"} : tensor<128x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x128x64>
    %73 = tile.async_copy_global_to_local %62, %71, %70 {tile.pipeline_part = "prologue"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %74 = tile.async_commit_group tokens %72, %73 {tile.pipeline_part = "prologue"}
    %75 = arith.cmpi sgt, %23, %c1_i32_10 : i32
    %c1_i32_14 = arith.constant 1 : i32
    %c64_i32_15 = arith.constant 64 : i32
    %76 = tile.expand_dims %18 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %77 = tile.splat %c64_i32_15 : tensor<1x64xi32, #blocked>
    %78 = arith.addi %77, %76 : tensor<1x64xi32, #blocked>
    %79 = tile.splat %1 : tensor<1x64xi32, #blocked>
    %80 = arith.cmpi slt, %78, %79 : tensor<1x64xi32, #blocked>
    %81 = tile.expand_dims %12 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %82 = tile.splat %3 : tensor<128x1xi32, #blocked>
    %83 = arith.muli %81, %82 : tensor<128x1xi32, #blocked>
    %84 = tile.splat %arg0 : tensor<128x1x!tile.ptr<bf16>, #blocked>
    %85 = tile.addptr %84, %83 : tensor<128x1x!tile.ptr<bf16>, #blocked>, tensor<128x1xi32, #blocked>
    %86 = tile.expand_dims %18 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %87 = tile.splat %c64_i32_15 : tensor<1x64xi32, #blocked>
    %88 = arith.addi %87, %86 : tensor<1x64xi32, #blocked>
    %89 = tile.broadcast %85 : tensor<128x1x!tile.ptr<bf16>, #blocked> -> tensor<128x64x!tile.ptr<bf16>, #blocked>
    %90 = tile.broadcast %88 : tensor<1x64xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %91 = tile.addptr %89, %90 : tensor<128x64x!tile.ptr<bf16>, #blocked>, tensor<128x64xi32, #blocked>
    %92 = tile.expand_dims %12 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %93 = tile.splat %arg3 : tensor<128x1xi32, #blocked>
    %94 = arith.cmpi slt, %92, %93 : tensor<128x1xi32, #blocked>
    %95 = tile.broadcast %94 : tensor<128x1xi1, #blocked> -> tensor<128x64xi1, #blocked>
    %96 = tile.splat %75 : tensor<1x64xi1, #blocked>
    %97 = arith.andi %80, %96 : tensor<1x64xi1, #blocked>
    %98 = tile.broadcast %97 : tensor<1x64xi1, #blocked> -> tensor<128x64xi1, #blocked>
    %99 = arith.andi %95, %98 : tensor<128x64xi1, #blocked>
    %100 = tile.memdesc_index %24[%c1_i32_14] : !tile.memdesc<3x128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x128x64>
    %101 = tile.expand_dims %17 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked>
    %102 = tile.splat %5 : tensor<64x1xi32, #blocked>
    %103 = arith.muli %101, %102 : tensor<64x1xi32, #blocked>
    %104 = tile.splat %arg1 : tensor<64x1x!tile.ptr<bf16>, #blocked>
    %105 = tile.addptr %104, %103 : tensor<64x1x!tile.ptr<bf16>, #blocked>, tensor<64x1xi32, #blocked>
    %106 = tile.expand_dims %18 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %107 = tile.splat %c64_i32_15 : tensor<1x64xi32, #blocked>
    %108 = arith.addi %107, %106 : tensor<1x64xi32, #blocked>
    %109 = tile.broadcast %105 : tensor<64x1x!tile.ptr<bf16>, #blocked> -> tensor<64x64x!tile.ptr<bf16>, #blocked>
    %110 = tile.broadcast %108 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %111 = tile.addptr %109, %110 : tensor<64x64x!tile.ptr<bf16>, #blocked>, tensor<64x64xi32, #blocked>
    %112 = tile.expand_dims %17 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked>
    %113 = tile.splat %arg4 : tensor<64x1xi32, #blocked>
    %114 = arith.cmpi slt, %112, %113 : tensor<64x1xi32, #blocked>
    %115 = tile.broadcast %114 : tensor<64x1xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %116 = tile.splat %75 : tensor<1x64xi1, #blocked>
    %117 = arith.andi %80, %116 : tensor<1x64xi1, #blocked>
    %118 = tile.broadcast %117 : tensor<1x64xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %119 = arith.andi %115, %118 : tensor<64x64xi1, #blocked>
    %120 = tile.memdesc_index %25[%c1_i32_14] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %121 = tile.async_copy_global_to_local %91, %100, %99 {tile.pipeline_part = "prologue"} : tensor<128x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x128x64>
    %122 = tile.async_copy_global_to_local %111, %120, %119 {tile.pipeline_part = "prologue"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
    %123 = tile.async_commit_group tokens %121, %122 {tile.pipeline_part = "prologue"}
    %124:3 = scf.for %arg9 = %c0_i32_9 to %23 step %c1_i32_10 iter_args(%arg10 = %cst, %arg11 = %74, %arg12 = %123) -> (tensor<128x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>, !tile.async_token, !tile.async_token)  : i32 {
      %c2_i32 = arith.constant 2 : i32
      %158 = arith.subi %23, %c2_i32 : i32
      %159 = arith.cmpi slt, %arg9, %158 : i32
      %c2_i32_18 = arith.constant 2 : i32
      %160 = arith.addi %arg9, %c2_i32_18 : i32
      %161 = arith.remsi %160, %c3_i32 : i32
      %c2_i32_19 = arith.constant 2 : i32
      %162 = arith.addi %arg9, %c2_i32_19 : i32
      %163 = arith.muli %162, %c64_i32_7 : i32
      %164 = tile.expand_dims %18 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
      %165 = tile.splat %163 : tensor<1x64xi32, #blocked>
      %166 = arith.addi %165, %164 : tensor<1x64xi32, #blocked>
      %167 = tile.splat %1 : tensor<1x64xi32, #blocked>
      %168 = arith.cmpi slt, %166, %167 : tensor<1x64xi32, #blocked>
      %169 = tile.expand_dims %12 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
      %170 = tile.splat %3 : tensor<128x1xi32, #blocked>
      %171 = arith.muli %169, %170 : tensor<128x1xi32, #blocked>
      %172 = tile.splat %arg0 : tensor<128x1x!tile.ptr<bf16>, #blocked>
      %173 = tile.addptr %172, %171 : tensor<128x1x!tile.ptr<bf16>, #blocked>, tensor<128x1xi32, #blocked>
      %174 = tile.expand_dims %18 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
      %175 = tile.splat %163 : tensor<1x64xi32, #blocked>
      %176 = arith.addi %175, %174 : tensor<1x64xi32, #blocked>
      %177 = tile.broadcast %173 : tensor<128x1x!tile.ptr<bf16>, #blocked> -> tensor<128x64x!tile.ptr<bf16>, #blocked>
      %178 = tile.broadcast %176 : tensor<1x64xi32, #blocked> -> tensor<128x64xi32, #blocked>
      %179 = tile.addptr %177, %178 : tensor<128x64x!tile.ptr<bf16>, #blocked>, tensor<128x64xi32, #blocked>
      %180 = tile.expand_dims %12 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
      %181 = tile.splat %arg3 : tensor<128x1xi32, #blocked>
      %182 = arith.cmpi slt, %180, %181 : tensor<128x1xi32, #blocked>
      %183 = tile.broadcast %182 : tensor<128x1xi1, #blocked> -> tensor<128x64xi1, #blocked>
      %184 = tile.splat %159 : tensor<1x64xi1, #blocked>
      %185 = arith.andi %168, %184 : tensor<1x64xi1, #blocked>
      %186 = tile.broadcast %185 : tensor<1x64xi1, #blocked> -> tensor<128x64xi1, #blocked>
      %187 = arith.andi %183, %186 : tensor<128x64xi1, #blocked>
      %188 = tile.memdesc_index %24[%161] : !tile.memdesc<3x128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x128x64>
      %189 = tile.expand_dims %17 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked>
      %190 = tile.splat %5 : tensor<64x1xi32, #blocked>
      %191 = arith.muli %189, %190 : tensor<64x1xi32, #blocked>
      %192 = tile.splat %arg1 : tensor<64x1x!tile.ptr<bf16>, #blocked>
      %193 = tile.addptr %192, %191 : tensor<64x1x!tile.ptr<bf16>, #blocked>, tensor<64x1xi32, #blocked>
      %194 = tile.expand_dims %18 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
      %195 = tile.splat %163 : tensor<1x64xi32, #blocked>
      %196 = arith.addi %195, %194 : tensor<1x64xi32, #blocked>
      %197 = tile.broadcast %193 : tensor<64x1x!tile.ptr<bf16>, #blocked> -> tensor<64x64x!tile.ptr<bf16>, #blocked>
      %198 = tile.broadcast %196 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
      %199 = tile.addptr %197, %198 : tensor<64x64x!tile.ptr<bf16>, #blocked>, tensor<64x64xi32, #blocked>
      %200 = tile.expand_dims %17 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked>
      %201 = tile.splat %arg4 : tensor<64x1xi32, #blocked>
      %202 = arith.cmpi slt, %200, %201 : tensor<64x1xi32, #blocked>
      %203 = tile.broadcast %202 : tensor<64x1xi1, #blocked> -> tensor<64x64xi1, #blocked>
      %204 = tile.splat %159 : tensor<1x64xi1, #blocked>
      %205 = arith.andi %168, %204 : tensor<1x64xi1, #blocked>
      %206 = tile.broadcast %205 : tensor<1x64xi1, #blocked> -> tensor<64x64xi1, #blocked>
      %207 = arith.andi %203, %206 : tensor<64x64xi1, #blocked>
      %208 = tile.memdesc_index %25[%161] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %209 = arith.remsi %arg9, %c3_i32 : i32
      %210 = tile.async_wait tokens %arg11 {num = 1 : i32, tile.pipeline_part = "kernel"}
      %211 = tile.memdesc_index %24[%209] : !tile.memdesc<3x128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x128x64>
      %212 = tile.memdesc_index %25[%209] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      tile_nv.fence_async_shared
      %213 = tile.memdesc_permute %212 {order = array<i32: 1, 0>} : !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable, 3x64x64>
      %214 = tile_nv.warpgroup_dot %211, %213, %arg10 {isAsync} : !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x128x64>, !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable, 3x64x64> -> tensor<128x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>
      %215 = tile_nv.warpgroup_dot_wait %214 {pendings = 1 : i32} : (tensor<128x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>) -> tensor<128x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>
      tile.barrier
      %216 = tile.async_copy_global_to_local %179, %188, %187 {tile.pipeline_part = "kernel"} : tensor<128x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x128x64>
      %217 = tile.async_copy_global_to_local %199, %208, %207 {tile.pipeline_part = "kernel"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %218 = tile.async_commit_group tokens %216, %217 {tile.pipeline_part = "kernel"}
      scf.yield %215, %arg12, %218 : tensor<128x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>, !tile.async_token, !tile.async_token
    }
    %125 = tile_nv.warpgroup_dot_wait %124#0 {pendings = 0 : i32} : (tensor<128x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>) -> tensor<128x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>
    %126 = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %24 : !tile.memdesc<3x128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    tile.local_dealloc %25 : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    %127 = arith.truncf %125 : tensor<128x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>> to tensor<128x64xbf16, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>
    %128 = tile.local_alloc %127 : (tensor<128x64xbf16, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>>) -> !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    %129 = tile.local_load %128 : !tile.memdesc<128x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> tensor<128x64xbf16, #blocked>
    %130 = tile.program_id 0
    %c128_i32_16 = arith.constant 128 : i32
    %131 = arith.muli %130, %c128_i32_16 : i32
    %132 = tile.arange 0, 128 : tensor<128xi32, #slice>
    %133 = tile.splat %131 : tensor<128xi32, #slice>
    %134 = arith.addi %133, %132 : tensor<128xi32, #slice>
    %135 = tile.program_id 1
    %c64_i32_17 = arith.constant 64 : i32
    %136 = arith.muli %135, %c64_i32_17 : i32
    %137 = tile.arange 0, 64 : tensor<64xi32, #slice1>
    %138 = tile.splat %136 : tensor<64xi32, #slice1>
    %139 = arith.addi %138, %137 : tensor<64xi32, #slice1>
    %140 = tile.expand_dims %134 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %141 = tile.splat %7 : tensor<128x1xi32, #blocked>
    %142 = arith.muli %140, %141 : tensor<128x1xi32, #blocked>
    %143 = tile.splat %arg2 : tensor<128x1x!tile.ptr<bf16>, #blocked>
    %144 = tile.addptr %143, %142 : tensor<128x1x!tile.ptr<bf16>, #blocked>, tensor<128x1xi32, #blocked>
    %145 = tile.expand_dims %139 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %146 = tile.broadcast %144 : tensor<128x1x!tile.ptr<bf16>, #blocked> -> tensor<128x64x!tile.ptr<bf16>, #blocked>
    %147 = tile.broadcast %145 : tensor<1x64xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %148 = tile.addptr %146, %147 : tensor<128x64x!tile.ptr<bf16>, #blocked>, tensor<128x64xi32, #blocked>
    %149 = tile.expand_dims %134 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %150 = tile.splat %arg3 : tensor<128x1xi32, #blocked>
    %151 = arith.cmpi slt, %149, %150 : tensor<128x1xi32, #blocked>
    %152 = tile.expand_dims %139 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %153 = tile.splat %arg4 : tensor<1x64xi32, #blocked>
    %154 = arith.cmpi slt, %152, %153 : tensor<1x64xi32, #blocked>
    %155 = tile.broadcast %151 : tensor<128x1xi1, #blocked> -> tensor<128x64xi1, #blocked>
    %156 = tile.broadcast %154 : tensor<1x64xi1, #blocked> -> tensor<128x64xi1, #blocked>
    %157 = arith.andi %155, %156 : tensor<128x64xi1, #blocked>
    tile.store %148, %129, %157 : tensor<128x64x!tile.ptr<bf16>, #blocked>
    return
  }
}


