// RUN: kiln-opt %s --split-input-file --tile-allocate-shared-memory | FileCheck %s

// A buffer read by an asynchronous wgmma stays live until a wait that
// leaves no group in flight (in a block holding the read), and a buffer a
// TMA copy writes until the last wait on the copy's barrier. After those,
// the epilogue's C tile reuses the ring's bytes (offset 0); with the
// wait(0) missing, the read is in flight to the end and C goes elsewhere.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ring = !tile.memdesc<2x64x64xbf16, #nv, mutable>
!slot = !tile.memdesc<64x64xbf16, #nv, mutable, 2x64x64>
!slotT = !tile.memdesc<64x64xbf16, #nvt, mutable, 2x64x64>
!bars = !tile.memdesc<2x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, 2x1>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @epilogue_reuses_ring
  // CHECK: tile.local_alloc {tile.scratch_offset = 0 : i32} : () -> !tile.memdesc<2x64x64xbf16
  // CHECK: tile.local_alloc {tile.scratch_offset = 16384 : i32} : () -> !tile.memdesc<2x1xi64
  // CHECK: tile.local_alloc {tile.scratch_offset = 0 : i32} : () -> !tile.memdesc<64x64xbf16
  func.func @epilogue_reuses_ring(%ad: !desc, %n: i32, %t: tensor<64x64xbf16, #acc>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %a = tile.local_alloc : () -> !ring
    %bars = tile.local_alloc : () -> !bars
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #acc>) : i32 {
      %s = arith.remsi %i, %c2 : i32
      %b = tile.memdesc_index %bars[%s] : !bars -> !bar
      %x = tile.memdesc_index %a[%s] : !ring -> !slot
      tile_nv.mbarrier_expect %b, 8192 : !bar
      tile_nv.async_tma_copy_global_to_local %ad[%c0, %i], %b, %x : !desc, !bar, !slot
      tile_nv.mbarrier_wait %b, %c0 : !bar, i32
      %xt = tile.memdesc_permute %x {order = array<i32: 1, 0>} : !slot -> !slotT
      %d = tile_nv.warpgroup_dot %x, %xt, %c {isAsync} : !slot, !slotT -> tensor<64x64xf32, #acc>
      %r = tile_nv.warpgroup_dot_wait %d {pendings = 1 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      scf.yield %r : tensor<64x64xf32, #acc>
    }
    %fin = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %cbuf = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    tile.local_store %t, %cbuf : tensor<64x64xbf16, #acc> -> !tile.memdesc<64x64xbf16, #nv, mutable>
    return
  }
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @read_in_flight_to_the_end
  // CHECK: tile.local_alloc {tile.scratch_offset = 0 : i32} : () -> !tile.memdesc<64x64xbf16
  // CHECK: tile.local_alloc {tile.scratch_offset = 8192 : i32} : () -> !tile.memdesc<64x64xbf16
  func.func @read_in_flight_to_the_end(%t: tensor<64x64xbf16, #acc>, %c: tensor<64x64xf32, #acc>) {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %at = tile.memdesc_permute %a {order = array<i32: 1, 0>} : !tile.memdesc<64x64xbf16, #nv, mutable> -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    %d = tile_nv.warpgroup_dot %a, %at, %c {isAsync} : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    %r = tile_nv.warpgroup_dot_wait %d {pendings = 1 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    %cbuf = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    tile.local_store %t, %cbuf : tensor<64x64xbf16, #acc> -> !tile.memdesc<64x64xbf16, #nv, mutable>
    return
  }
}
