// RUN: kiln-opt %s --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s

// TMA loads are writes that land, for every thread, when a wait on their
// mbarrier returns: no CTA barrier between the copies, the wait and the
// wgmma (or a load) reading the buffers. The mbarrier init writes only its
// word, which nothing touched before: no barrier before it. Refilling slot 0
// after the wgmma read it is a write after read: a barrier before the copy.
// The epilogue's stores are thread-keyed; the TMA store reads the whole
// buffer: a barrier before it (after the fence).
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @load_wait_dot_refill
  // CHECK-NOT: tile.barrier
  // CHECK: tile_nv.mbarrier_init
  // CHECK-NOT: tile.barrier
  // CHECK: tile_nv.async_tma_copy_global_to_local
  // CHECK-NOT: tile.barrier
  // CHECK: tile_nv.async_tma_copy_global_to_local
  // CHECK-NOT: tile.barrier
  // CHECK: tile_nv.mbarrier_wait
  // CHECK-NOT: tile.barrier
  // CHECK: tile_nv.warpgroup_dot
  // CHECK: tile_nv.warpgroup_dot_wait
  // CHECK: tile_nv.mbarrier_expect
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  // CHECK: tile.local_store
  // CHECK-NEXT: tile_nv.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.async_tma_copy_local_to_global
  func.func @load_wait_dot_refill(%ad: !tile.tensordesc<tensor<64x64xbf16, #nv>>, %bd: !tile.tensordesc<tensor<64x64xbf16, #nv>>, %cd: !tile.tensordesc<tensor<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>>>, %k: i32) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 16384 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %bar, %a : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv, mutable>
    tile_nv.async_tma_copy_global_to_local %bd[%c0, %c0], %bar, %b : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv, mutable>
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !tile.memdesc<64x64xbf16, #nv, mutable> -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %bt, %z {isAsync} : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    %r = tile_nv.warpgroup_dot_wait %d {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    tile_nv.mbarrier_expect %bar, 8192 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %k], %bar, %a : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv, mutable>
    %c = tile.local_alloc : () -> !tile.memdesc<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>, mutable>
    tile.local_store %r, %c : tensor<64x64xf32, #acc> -> !tile.memdesc<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>, mutable>
    tile_nv.fence_async_shared
    tile_nv.async_tma_copy_local_to_global %cd[%c0, %c0], %c : !tile.tensordesc<tensor<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>>>, !tile.memdesc<64x64xf32, #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>, mutable>
    return
  }
}
