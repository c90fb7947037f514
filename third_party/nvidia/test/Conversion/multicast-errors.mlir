// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics

// A multicast copy in a loop refills its buffer in the other CTAs too: with
// neither an arrival from them (cta_mask) nor a cluster barrier in the loop,
// nothing orders their reads of the previous fill before it.

#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @refill_unordered(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %n: i32, %mask: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
      tile_nv.mbarrier_expect %bar, 1024 : !tile.memdesc<1xi64, #sh, mutable>
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' op multicasts in a loop, refilling its buffer in the other CTAs of the cluster that share it, but nothing tells this CTA that they are done reading the previous fill}}
      tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %bar, %buf multicast %mask : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
      tile_nv.mbarrier_wait %bar, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
      %next = arith.xori %ph, %c1 : i32
      scf.yield %next : i32
    }
    return
  }
}

// -----

// The same loop with a cluster barrier after the reads: no error.
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @refill_after_cluster_barrier(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %n: i32, %mask: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
      tile_nv.mbarrier_expect %bar, 1024 : !tile.memdesc<1xi64, #sh, mutable>
      tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %bar, %buf multicast %mask : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
      tile_nv.mbarrier_wait %bar, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.cluster_arrive {relaxed = false}
      tile_nv.cluster_wait
      %next = arith.xori %ph, %c1 : i32
      scf.yield %next : i32
    }
    return
  }
}
