// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --tile-annotate-local-load-alias | FileCheck %s --check-prefix=ALIAS

// Where async work retires, as the barrier pass reads the shared async state
// (kiln/Analysis/AsyncState.h).
//
// A synchronous wgmma waits for its counter like a wait leaving none in
// flight: its own warpgroup's earlier wgmmas are done, the other
// warpgroup's may still read %a until a CTA barrier. The store into %a
// after it gets one (the explicit barrier before cleared the reads the
// async wgmma made at issue).
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#bl = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @sync_dot_retires_own_group
  // CHECK: tile_nv.warpgroup_dot {{.*}} {isAsync}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.warpgroup_dot
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  func.func @sync_dot_retires_own_group(%x: tensor<128x64xbf16, #bl>) -> tensor<128x64xf32, #acc> {
    %a = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    %c = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %b, %z {isAsync} : !tile.memdesc<128x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<128x64xf32, #acc>
    tile.barrier
    %e = tile_nv.warpgroup_dot %c, %b, %z : !tile.memdesc<128x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<128x64xf32, #acc>
    tile.local_store %x, %a : tensor<128x64xbf16, #bl> -> !tile.memdesc<128x64xbf16, #nv, mutable>
    return %e : tensor<128x64xf32, #acc>
  }
}

// -----

// cp.async copies an arrive hands to an mbarrier land, for every thread, at
// the wait on it: the load after the wait reads bytes no copy in flight
// writes.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<512x!tile.ptr<f32>, #l>
!m = !tile.memdesc<512xf32, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // ALIAS-LABEL: func.func @copy_through_mbarrier
  // ALIAS: tile_nv.mbarrier_wait
  // ALIAS-NEXT: tile.local_load {{.*}} {tile.synced_via_wait}
  func.func @copy_through_mbarrier(%p: !p) -> tensor<512xf32, #l> {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !m
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %t = tile.async_copy_global_to_local %p, %a : !p -> !m
    tile_nv.async_copy_mbarrier_arrive %bar : !bar
    tile_nv.mbarrier_arrive %bar, 1 : !bar
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    %v = tile.local_load %a : !m -> tensor<512xf32, #l>
    return %v : tensor<512xf32, #l>
  }

  // Before the wait on the mbarrier the copy is still in flight.
  // ALIAS-LABEL: func.func @load_before_the_mbarrier_wait
  // ALIAS: tile.local_load
  // ALIAS-NOT: synced_via_wait
  // ALIAS: tile_nv.mbarrier_wait
  func.func @load_before_the_mbarrier_wait(%p: !p) -> tensor<512xf32, #l> {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !m
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %t = tile.async_copy_global_to_local %p, %a : !p -> !m
    tile_nv.async_copy_mbarrier_arrive %bar : !bar
    tile_nv.mbarrier_arrive %bar, 1 : !bar
    %v = tile.local_load %a : !m -> tensor<512xf32, #l>
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    return %v : tensor<512xf32, #l>
  }
}
