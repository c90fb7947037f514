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

// -----

// The ring way: the readers arrive on the slot's "empty" barrier in both CTAs
// (cta_mask = 1), which counts both arrivals, and the refill waits on it: no
// error.
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @ring_released_by_every_cta(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %n: i32, %mask: i32) {
    %ready = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %empty = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %ready, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %empty, 2 : !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
      %eph = arith.xori %ph, %c1 : i32
      tile_nv.mbarrier_wait %empty, %eph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_expect %ready, 1024 : !tile.memdesc<1xi64, #sh, mutable>
      tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %ready, %buf multicast %mask : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
      tile_nv.mbarrier_wait %ready, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_arrive %empty, 1 {cta_mask = 1 : i32} : !tile.memdesc<1xi64, #sh, mutable>
      %next = arith.xori %ph, %c1 : i32
      scf.yield %next : i32
    }
    return
  }
}

// -----

// The same ring with "empty" counting one arrival a phase: the first CTA's
// arrival completes it while the other CTA may still read the slot.
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @release_counts_one_cta(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %n: i32, %mask: i32) {
    %ready = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %empty = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %ready, 1 : !tile.memdesc<1xi64, #sh, mutable>
    // expected-error @+1 {{'tile_nv.mbarrier_init' op counts 1 arrival a phase, but each arrival with cta_mask = 1 reaches it from 2 CTAs (2 arrivals): its phase completes before every CTA's readers are done}}
    tile_nv.mbarrier_init %empty, 1 : !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
      %eph = arith.xori %ph, %c1 : i32
      tile_nv.mbarrier_wait %empty, %eph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_expect %ready, 1024 : !tile.memdesc<1xi64, #sh, mutable>
      tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %ready, %buf multicast %mask : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
      tile_nv.mbarrier_wait %ready, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
      // expected-note @+1 {{the arrival}}
      tile_nv.mbarrier_arrive %empty, 1 {cta_mask = 1 : i32} : !tile.memdesc<1xi64, #sh, mutable>
      %next = arith.xori %ph, %c1 : i32
      scf.yield %next : i32
    }
    return
  }
}

// -----

// The readers arrive in both CTAs, but on a barrier the refill never waits
// on: its loop waits only on "ready", which only this CTA's copy completes.
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @refill_waits_on_the_wrong_barrier(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %n: i32, %mask: i32) {
    %ready = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %empty = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %ready, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %empty, 2 : !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
      tile_nv.mbarrier_expect %ready, 1024 : !tile.memdesc<1xi64, #sh, mutable>
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' op multicasts in a loop, refilling its buffer in the other CTAs of the cluster that share it, but its loop waits on no barrier those CTAs arrive on}}
      tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %ready, %buf multicast %mask : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
      // expected-note @+1 {{a wait of the loop, on a barrier only this CTA arrives on}}
      tile_nv.mbarrier_wait %ready, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_arrive %empty, 1 {cta_mask = 1 : i32} : !tile.memdesc<1xi64, #sh, mutable>
      %next = arith.xori %ph, %c1 : i32
      scf.yield %next : i32
    }
    return
  }
}

// -----

// Four CTAs (cta_mask = 3): "empty" must count an arrival from each of them; 4
// is right (no error), and the lifecycle check counts the 4 too.
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @ring_of_four_ctas(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %n: i32, %mask: i32) {
    %ready = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %empty = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %ready, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %empty, 4 : !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
      %eph = arith.xori %ph, %c1 : i32
      tile_nv.mbarrier_wait %empty, %eph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_expect %ready, 1024 : !tile.memdesc<1xi64, #sh, mutable>
      tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %ready, %buf multicast %mask : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
      tile_nv.mbarrier_wait %ready, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_arrive %empty, 1 {cta_mask = 3 : i32} : !tile.memdesc<1xi64, #sh, mutable>
      %next = arith.xori %ph, %c1 : i32
      scf.yield %next : i32
    }
    return
  }
}

// -----

// The same with "empty" counting 2 arrivals of 4 (two CTAs' releases complete a
// phase while the other two may still read): an error at the init.
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @ring_of_four_counts_two(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %n: i32, %mask: i32) {
    %ready = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %empty = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %ready, 1 : !tile.memdesc<1xi64, #sh, mutable>
    // expected-error @+1 {{counts 2 arrivals a phase, but each arrival with cta_mask = 3 reaches it from 4 CTAs (4 arrivals)}}
    tile_nv.mbarrier_init %empty, 2 : !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
      %eph = arith.xori %ph, %c1 : i32
      tile_nv.mbarrier_wait %empty, %eph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_expect %ready, 1024 : !tile.memdesc<1xi64, #sh, mutable>
      tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %ready, %buf multicast %mask : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
      tile_nv.mbarrier_wait %ready, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
      // expected-note @+1 {{the arrival}}
      tile_nv.mbarrier_arrive %empty, 1 {cta_mask = 3 : i32} : !tile.memdesc<1xi64, #sh, mutable>
      %next = arith.xori %ph, %c1 : i32
      scf.yield %next : i32
    }
    return
  }
}

// -----

// The ring released by its leader alone (Gluon's arrive(from_cta=)): the leader's arrival on
// every CTA's "empty" barrier says the leader is done reading, not that the others are, so
// the refill is as unordered as with no arrival.
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @ring_released_by_the_leader(%d: !tile.tensordesc<tensor<16x32xf16, #nv>>, %n: i32, %mask: i32) {
    %ready = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %empty = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nv, mutable>
    tile_nv.mbarrier_init %ready, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %empty, 1 : !tile.memdesc<1xi64, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
      %eph = arith.xori %ph, %c1 : i32
      tile_nv.mbarrier_wait %empty, %eph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_expect %ready, 1024 : !tile.memdesc<1xi64, #sh, mutable>
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' op multicasts in a loop, refilling its buffer in the other CTAs of the cluster that share it, but nothing tells this CTA that they are done reading the previous fill}}
      tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %ready, %buf multicast %mask : !tile.tensordesc<tensor<16x32xf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<16x32xf16, #nv, mutable>
      tile_nv.mbarrier_wait %ready, %ph : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile_nv.mbarrier_arrive %empty, 1 {cta_mask = 1 : i32, from_leader} : !tile.memdesc<1xi64, #sh, mutable>
      %next = arith.xori %ph, %c1 : i32
      scf.yield %next : i32
    }
    return
  }
}
