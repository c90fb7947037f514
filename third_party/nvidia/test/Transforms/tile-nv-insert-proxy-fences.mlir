// RUN: kiln-opt %s -split-input-file --tile-nv-insert-proxy-fences | FileCheck %s
// RUN: kiln-opt %s -split-input-file --tile-nv-insert-proxy-fences --tile-nv-pipeline-wgmma --tile-insert-wait-counts --tile-check-async-safety -o /dev/null

// A loop tile-pipeline-expand made (cp.async ring read by wgmma, 4 warps):
// the wgmma reads slots cp.async copies wrote (generic proxy), so a fence goes
// right before it (tile-insert-barriers later puts its barrier between the
// two). The second RUN line: without the fence tile-check-async-safety reports
// the unfenced read (pipeline-broken-wgmma.mlir and tile-check-async-safety.mlir
// show it); with it the ring is safe.
// CHECK-LABEL: func.func @gemm
// CHECK: scf.for
// CHECK: tile.async_wait tokens %{{.*}} {tile.pipeline_part = "kernel"}
// CHECK: tile_nv.fence_async_shared
// CHECK-NEXT: tile_nv.warpgroup_dot
// CHECK: }
// CHECK: tile.async_wait {num = 0 : i32}
// CHECK-NOT: tile_nv.fence_async_shared

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
      %32 = arith.subi %arg2, %c2_i32 : i32
      %33 = arith.cmpi slt, %arg3, %32 : i32
      %34 = arith.remsi %arg3, %c3_i32 : i32
      %35 = tile.async_wait tokens %arg5 {tile.pipeline_part = "kernel"}
      %36 = tile.memdesc_index %13[%34] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %37 = tile.memdesc_permute %36 {order = array<i32: 1, 0>} : !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable, 3x64x64>
      %38 = tile.memdesc_index %12[%34] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %39 = tile_nv.warpgroup_dot %38, %37, %arg4 : !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>, !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>, mutable, 3x64x64> -> tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
      %c2_i32_4 = arith.constant 2 : i32
      %40 = arith.addi %arg3, %c2_i32_4 : i32
      %41 = arith.remsi %40, %c3_i32 : i32
      %42 = tile.memdesc_index %12[%41] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %43 = tile.splat %33 : tensor<64x64xi1, #blocked>
      %44 = tile.async_copy_global_to_local %10, %42, %43 {tile.pipeline_part = "kernel"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %45 = tile.memdesc_index %13[%41] : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %46 = tile.splat %33 : tensor<64x64xi1, #blocked>
      %47 = tile.async_copy_global_to_local %11, %45, %46 {tile.pipeline_part = "kernel"} : tensor<64x64x!tile.ptr<bf16>, #blocked> -> !tile.memdesc<64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable, 3x64x64>
      %48 = tile.async_commit_group tokens %44, %47 {tile.pipeline_part = "kernel"}
      scf.yield %39, %arg6, %48 : tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>, !tile.async_token, !tile.async_token
    }
    %31 = tile.async_wait {num = 0 : i32}
    tile.local_dealloc %12 : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    tile.local_dealloc %13 : !tile.memdesc<3x64x64xbf16, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>, mutable>
    return %30#0 : tensor<64x64xf32, #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
  }
}

// -----

// Hand-written (what Gluon kernels often do, leaving the fence to the
// compiler): a buffer initialized from registers, then a TMA store, a buffer
// stored and read by wgmma, and one already fenced (no second fence).
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
!bufT = !tile.memdesc<64x64xbf16, #nvt, mutable>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @tma_store_of_initialized_buffer
  // CHECK: tile.local_alloc %
  // CHECK-NEXT: tile_nv.fence_async_shared
  // CHECK-NEXT: tile_nv.async_tma_copy_local_to_global
  func.func @tma_store_of_initialized_buffer(%d: !desc, %x: tensor<64x64xbf16, #l>) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc %x : (tensor<64x64xbf16, #l>) -> !buf
    tile_nv.async_tma_copy_local_to_global %d[%c0, %c0], %a : !desc, !buf
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }

  // CHECK-LABEL: func.func @wgmma_of_stored_buffers
  // CHECK: tile.memdesc_permute
  // CHECK: tile_nv.fence_async_shared
  // CHECK-NEXT: tile_nv.warpgroup_dot
  // CHECK-NOT: tile_nv.fence_async_shared
  // CHECK: return
  func.func @wgmma_of_stored_buffers(%x: tensor<64x64xbf16, #l>) -> tensor<64x64xf32, #acc> {
    %a = tile.local_alloc : () -> !buf
    tile.local_store %x, %a : tensor<64x64xbf16, #l> -> !buf
    %at = tile.memdesc_permute %a {order = array<i32: 1, 0>} : !buf -> !bufT
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %at, %z : !buf, !bufT -> tensor<64x64xf32, #acc>
    %e = tile_nv.warpgroup_dot %a, %at, %d : !buf, !bufT -> tensor<64x64xf32, #acc>
    return %e : tensor<64x64xf32, #acc>
  }

  // CHECK-LABEL: func.func @already_fenced
  // CHECK-COUNT-1: tile_nv.fence_async_shared
  // CHECK-NOT: tile_nv.fence_async_shared
  // CHECK: return
  func.func @already_fenced(%x: tensor<64x64xbf16, #l>) -> tensor<64x64xf32, #acc> {
    %a = tile.local_alloc %x : (tensor<64x64xbf16, #l>) -> !buf
    tile_nv.fence_async_shared
    %at = tile.memdesc_permute %a {order = array<i32: 1, 0>} : !buf -> !bufT
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %at, %z : !buf, !bufT -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }
}

// -----

// A store into a view that control flow chooses (Gluon's
// test_proxy_fence_nested_multibuffer_prefix): `first` is slots 1-3 or 0-2
// of the ring, the store goes to its slot 1 (ring slot 2 or 1), and the TMA
// store reads ring slot 2: the write may be to the read's allocation, so a
// fence comes before the read.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
!ring = !tile.memdesc<4x32x32xf32, #nv, mutable>
!part = !tile.memdesc<3x32x32xf32, #nv, mutable, 4x32x32>
!pair = !tile.memdesc<2x32x32xf32, #nv, mutable, 4x32x32>
!slot = !tile.memdesc<32x32xf32, #nv, mutable, 4x32x32>
!desc = !tile.tensordesc<tensor<32x32xf32, #nv>>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @store_through_a_chosen_view
  // CHECK: tile.local_store
  // CHECK: tile_nv.fence_async_shared
  // CHECK-NEXT: tile_nv.async_tma_copy_local_to_global
  func.func @store_through_a_chosen_view(%d: !desc, %x: tensor<32x32xf32, #l>, %choose: i1) {
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %r = tile.local_alloc : () -> !ring
    %first = scf.if %choose -> !part {
      %s = tile.memdesc_subslice %r[1, 0, 0] : !ring -> !part
      scf.yield %s : !part
    } else {
      %s = tile.memdesc_subslice %r[0, 0, 0] : !ring -> !part
      scf.yield %s : !part
    }
    %nested = tile.memdesc_subslice %first[1, 0, 0] : !part -> !pair
    %slot = tile.memdesc_index %nested[%c0] : !pair -> !slot
    tile.local_store %x, %slot : tensor<32x32xf32, #l> -> !slot
    %two = tile.memdesc_index %r[%c2] : !ring -> !slot
    tile_nv.async_tma_copy_local_to_global %d[%c0, %c0], %two : !desc, !slot
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }

  // A loop's carried slot: the store goes to whichever slot the previous
  // trip chose (any of the ring's), so the TMA store of slot 2 in the same
  // trip needs its fence.
  // CHECK-LABEL: func.func @store_through_a_carried_view
  // CHECK: scf.for
  // CHECK: tile.local_store
  // CHECK: tile_nv.fence_async_shared
  // CHECK-NEXT: tile_nv.async_tma_copy_local_to_global
  func.func @store_through_a_carried_view(%d: !desc, %x: tensor<32x32xf32, #l>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %r = tile.local_alloc : () -> !ring
    %first = tile.memdesc_index %r[%c0] : !ring -> !slot
    %two = tile.memdesc_index %r[%c2] : !ring -> !slot
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%s = %first) -> (!slot) : i32 {
      tile.local_store %x, %s : tensor<32x32xf32, #l> -> !slot
      tile_nv.async_tma_copy_local_to_global %d[%c0, %c0], %two : !desc, !slot
      tile_nv.async_tma_store_wait {pendings = 0 : i32}
      %next = tile.memdesc_index %r[%i] : !ring -> !slot
      scf.yield %next : !slot
    }
    return
  }
}
