// RUN: kiln-opt %s --split-input-file --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s

// TMA loads are writes that land, for every thread, when a wait on their
// mbarrier returns: no CTA barrier between the copies, the wait and the
// wgmma (or a load) reading the buffers. The mbarrier init writes only its
// word, which nothing touched before: no barrier before it. Refilling slot 0
// after the wgmma read it needs no barrier either: the kernel's 4 warps are
// the wgmma's warpgroup, and once the copying thread's wait for it returns
// it has finished reading for all of them (and every warp has passed the
// mbarrier wait before it: the refill's re-arming cannot lap one). With 8
// warps (two warpgroups, @refill_two_warpgroups) the other warpgroup's wgmma
// may still read: a barrier before the refill. The epilogue's stores are
// thread-keyed; the TMA store reads the whole buffer: a barrier before it
// (after the fence).
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

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @refill_two_warpgroups
  // CHECK: tile_nv.warpgroup_dot_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.mbarrier_expect
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  func.func @refill_two_warpgroups(%ad: !tile.tensordesc<tensor<128x64xbf16, #nv>>, %bd: !tile.tensordesc<tensor<64x64xbf16, #nv>>, %k: i32) -> tensor<128x64xf32, #acc> {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 24576 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %bar, %a : !tile.tensordesc<tensor<128x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<128x64xbf16, #nv, mutable>
    tile_nv.async_tma_copy_global_to_local %bd[%c0, %c0], %bar, %b : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv, mutable>
    tile_nv.mbarrier_wait %bar, %c0 : !tile.memdesc<1xi64, #sh, mutable>, i32
    %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !tile.memdesc<64x64xbf16, #nv, mutable> -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %bt, %z {isAsync} : !tile.memdesc<128x64xbf16, #nv, mutable>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<128x64xf32, #acc>
    %r = tile_nv.warpgroup_dot_wait %d {pendings = 0 : i32} : (tensor<128x64xf32, #acc>) -> tensor<128x64xf32, #acc>
    tile_nv.mbarrier_expect %bar, 16384 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %k], %bar, %a : !tile.tensordesc<tensor<128x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<128x64xbf16, #nv, mutable>
    return %r : tensor<128x64xf32, #acc>
  }
}

// -----

// One elected thread issues a TMA store and only its own wait_group waits
// for it: the other threads may rewrite the buffer only after a CTA barrier
// that follows the wait, even where a barrier came between the store and
// the wait (a persistent kernel's K loop between two tiles' epilogues).
#nv32 = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
#acc4 = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @tma_store_wait_then_rewrite
  // CHECK: tile_nv.async_tma_copy_local_to_global
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.async_tma_store_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  func.func @tma_store_wait_then_rewrite(%cd: !tile.tensordesc<tensor<64x64xf32, #nv32>>, %r: tensor<64x64xf32, #acc4>) {
    %c0 = arith.constant 0 : i32
    %c = tile.local_alloc : () -> !tile.memdesc<64x64xf32, #nv32, mutable>
    tile.local_store %r, %c : tensor<64x64xf32, #acc4> -> !tile.memdesc<64x64xf32, #nv32, mutable>
    tile_nv.fence_async_shared
    tile_nv.async_tma_copy_local_to_global %cd[%c0, %c0], %c : !tile.tensordesc<tensor<64x64xf32, #nv32>>, !tile.memdesc<64x64xf32, #nv32, mutable>
    tile.barrier
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    tile.local_store %r, %c : tensor<64x64xf32, #acc4> -> !tile.memdesc<64x64xf32, #nv32, mutable>
    return
  }
}

// -----

// A TMA reduce-store reads its source as the store does: a barrier before
// it after the threads' stores and the fence, and, as its wait (here one
// that also waits for the global writes) retires only the issuing thread's
// group, a barrier after the wait before the buffer is rewritten.
#nv32 = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
#acc4 = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @tma_reduce_after_store
  // CHECK: tile.local_store
  // CHECK-NEXT: tile_nv.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.async_tma_reduce add
  // CHECK-NEXT: tile_nv.async_tma_store_wait {pendings = 0 : i32, read_only = false}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  func.func @tma_reduce_after_store(%cd: !tile.tensordesc<tensor<64x64xf32, #nv32>>, %r: tensor<64x64xf32, #acc4>) {
    %c0 = arith.constant 0 : i32
    %c = tile.local_alloc : () -> !tile.memdesc<64x64xf32, #nv32, mutable>
    tile.local_store %r, %c : tensor<64x64xf32, #acc4> -> !tile.memdesc<64x64xf32, #nv32, mutable>
    tile_nv.fence_async_shared
    tile_nv.async_tma_reduce add, %cd[%c0, %c0], %c : !tile.tensordesc<tensor<64x64xf32, #nv32>>, !tile.memdesc<64x64xf32, #nv32, mutable>
    tile_nv.async_tma_store_wait {pendings = 0 : i32, read_only = false}
    tile.local_store %r, %c : tensor<64x64xf32, #acc4> -> !tile.memdesc<64x64xf32, #nv32, mutable>
    return
  }
}

// -----

// Views of one allocation whose elements do not meet share no byte (every
// shared layout gives each element its own bytes): two halves of an
// epilogue tile, stored by different threads, need no barrier between
// them, nor a half seen through a permute; overlapping ones do.
#nv16 = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nv16t = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc8 = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 32]}>
#bl = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @disjoint_halves
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @disjoint_halves(%r: tensor<128x128xbf16, #acc8>, %t: tensor<128x64xbf16, #bl>) {
    %d = tile.local_alloc : () -> !tile.memdesc<2x256x128xbf16, #nv16, mutable>
    %c1 = arith.constant 1 : i32
    %s = tile.memdesc_index %d[%c1] : !tile.memdesc<2x256x128xbf16, #nv16, mutable> -> !tile.memdesc<256x128xbf16, #nv16, mutable, 2x256x128>
    %a = tile.memdesc_subslice %s[0, 0] : !tile.memdesc<256x128xbf16, #nv16, mutable, 2x256x128> -> !tile.memdesc<128x128xbf16, #nv16, mutable, 2x256x128>
    tile.local_store %r, %a : tensor<128x128xbf16, #acc8> -> !tile.memdesc<128x128xbf16, #nv16, mutable, 2x256x128>
    %b = tile.memdesc_subslice %s[128, 0] : !tile.memdesc<256x128xbf16, #nv16, mutable, 2x256x128> -> !tile.memdesc<128x128xbf16, #nv16, mutable, 2x256x128>
    tile.local_store %r, %b : tensor<128x128xbf16, #acc8> -> !tile.memdesc<128x128xbf16, #nv16, mutable, 2x256x128>
    return
  }
  // CHECK-LABEL: func.func @disjoint_permuted
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @disjoint_permuted(%r: tensor<128x128xbf16, #acc8>, %t: tensor<128x64xbf16, #bl>, %i: i32) {
    %d = tile.local_alloc : () -> !tile.memdesc<2x256x128xbf16, #nv16, mutable>
    %s = tile.memdesc_index %d[%i] : !tile.memdesc<2x256x128xbf16, #nv16, mutable> -> !tile.memdesc<256x128xbf16, #nv16, mutable, 2x256x128>
    %p = tile.memdesc_permute %s {order = array<i32: 1, 0>} : !tile.memdesc<256x128xbf16, #nv16, mutable, 2x256x128> -> !tile.memdesc<128x256xbf16, #nv16t, mutable, 2x128x256>
    %e = tile.memdesc_subslice %p[0, 128] : !tile.memdesc<128x256xbf16, #nv16t, mutable, 2x128x256> -> !tile.memdesc<128x128xbf16, #nv16t, mutable, 2x128x256>
    %f = tile.memdesc_subslice %s[0, 0] : !tile.memdesc<256x128xbf16, #nv16, mutable, 2x256x128> -> !tile.memdesc<128x64xbf16, #nv16, mutable, 2x256x128>
    tile.local_store %t, %f : tensor<128x64xbf16, #bl> -> !tile.memdesc<128x64xbf16, #nv16, mutable, 2x256x128>
    tile.local_store %r, %e : tensor<128x128xbf16, #acc8> -> !tile.memdesc<128x128xbf16, #nv16t, mutable, 2x128x256>
    return
  }
  // CHECK-LABEL: func.func @overlapping_views
  // CHECK: tile.local_store
  // CHECK-NEXT: tile.memdesc_permute
  // CHECK-NEXT: tile.memdesc_subslice
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  func.func @overlapping_views(%r: tensor<128x128xbf16, #acc8>, %t: tensor<128x64xbf16, #bl>) {
    %d = tile.local_alloc : () -> !tile.memdesc<128x128xbf16, #nv16, mutable>
    tile.local_store %r, %d : tensor<128x128xbf16, #acc8> -> !tile.memdesc<128x128xbf16, #nv16, mutable>
    %p = tile.memdesc_permute %d {order = array<i32: 1, 0>} : !tile.memdesc<128x128xbf16, #nv16, mutable> -> !tile.memdesc<128x128xbf16, #nv16t, mutable>
    %h = tile.memdesc_subslice %p[0, 64] : !tile.memdesc<128x128xbf16, #nv16t, mutable> -> !tile.memdesc<128x64xbf16, #nv16t, mutable, 128x128>
    tile.local_store %t, %h : tensor<128x64xbf16, #bl> -> !tile.memdesc<128x64xbf16, #nv16t, mutable, 128x128>
    return
  }
}

// -----

// The persistent-kernel shape: each iteration waits for the previous
// iteration's TMA store (a CTA barrier in between, as the K loop has), then
// rewrites the buffer. The rewrite waits for a barrier after the wait.
#nv32 = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
#acc4 = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @tma_store_in_a_loop
  // CHECK: scf.for
  // CHECK: tile_nv.async_tma_store_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  func.func @tma_store_in_a_loop(%cd: !tile.tensordesc<tensor<64x64xf32, #nv32>>, %r: tensor<64x64xf32, #acc4>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c = tile.local_alloc : () -> !tile.memdesc<64x64xf32, #nv32, mutable>
    scf.for %i = %c0 to %n step %c1 : i32 {
      tile.barrier
      tile_nv.async_tma_store_wait {pendings = 0 : i32}
      tile.local_store %r, %c : tensor<64x64xf32, #acc4> -> !tile.memdesc<64x64xf32, #nv32, mutable>
      tile_nv.fence_async_shared
      tile_nv.async_tma_copy_local_to_global %cd[%i, %c0], %c : !tile.tensordesc<tensor<64x64xf32, #nv32>>, !tile.memdesc<64x64xf32, #nv32, mutable>
    }
    tile_nv.async_tma_store_wait {pendings = 0 : i32}
    return
  }
}

// -----

// A wgmma whose A is in registers reads only B from shared memory: A's
// operand declares a read either way, which for registers is none. No CTA
// barrier between it and the next wgmma of the chain (there was one, as if
// the first had written all of shared memory).
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #acc, kWidth = 2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @register_a_chain
  // CHECK-NOT: tile.barrier
  // CHECK: tile_nv.warpgroup_dot
  // CHECK-NOT: tile.barrier
  // CHECK: tile_nv.warpgroup_dot
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @register_a_chain(%c: tensor<64x64xf32, #acc>, %ra: tensor<64x32xbf16, #opA>) -> tensor<64x64xf32, #acc> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x32xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<32x64xbf16, #nvt, mutable>
    %d = tile_nv.warpgroup_dot %ra, %b, %c {isAsync} : tensor<64x32xbf16, #opA>, !tile.memdesc<32x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    %e = tile_nv.warpgroup_dot %a, %b, %d {isAsync} : !tile.memdesc<64x32xbf16, #nv, mutable>, !tile.memdesc<32x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    %w = tile_nv.warpgroup_dot_wait %e {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    return %w : tensor<64x64xf32, #acc>
  }
}

// -----

// A value the threads post in shared memory for the waiters of an mbarrier
// whose arrival also expects a copy's bytes: the arrival is one thread's, so
// the others' writes need a barrier before it. With nothing written, no
// barrier before an expect (the copy orders a refill against reads itself).
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @post_then_expect
  // CHECK: tile_nv.mbarrier_init
  // CHECK-NOT: tile.barrier
  // CHECK: tile_nv.mbarrier_expect
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  // CHECK: tile.local_store
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.mbarrier_expect
  func.func @post_then_expect(%ad: !tile.tensordesc<tensor<64x64xbf16, #nv>>, %v: tensor<128xi32, #l>) {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %post = tile.local_alloc : () -> !tile.memdesc<128xi32, #sh, mutable>
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 8192 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %bar, %a : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv, mutable>
    tile.local_store %v, %post : tensor<128xi32, #l> -> !tile.memdesc<128xi32, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 8192 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %ad[%c0, %c0], %bar, %b : !tile.tensordesc<tensor<64x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<64x64xbf16, #nv, mutable>
    return
  }
}

// -----

// Every warp arrives on %e after reading %buf (per_warp), then all wait on
// %e: the read is ordered before the TMA refill without a CTA barrier. A wait
// on another barrier (%f), or a predicated wait, orders nothing: a barrier
// before the copy; so does a barrier whose phase one warp's arrival can
// complete (initialized for fewer arrivals than the warps bring). A
// one-thread arrival after threads' reads keeps its barrier before the
// arrival.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#l2 = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: func.func @released_per_warp
  // CHECK: tile.local_load
  // CHECK-NEXT: tile_nv.mbarrier_arrive {{.*}}per_warp
  // CHECK-NEXT: tile_nv.mbarrier_wait
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  func.func @released_per_warp(%d: !desc) -> tensor<64x64xbf16, #l> {
    %c0 = arith.constant 0 : i32
    %full = tile.local_alloc : () -> !bar
    %e = tile.local_alloc : () -> !bar
    %f = tile.local_alloc : () -> !bar
    %buf = tile.local_alloc : () -> !buf
    tile_nv.mbarrier_init %full, 1 : !bar
    tile_nv.mbarrier_init %e, 8 : !bar
    tile_nv.mbarrier_init %f, 1 : !bar
    tile_nv.mbarrier_expect %full, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    tile_nv.mbarrier_wait %full, %c0 : !bar, i32
    %v = tile.local_load %buf : !buf -> tensor<64x64xbf16, #l>
    tile_nv.mbarrier_arrive %e, 1 {per_warp} : !bar
    tile_nv.mbarrier_wait %e, %c0 : !bar, i32
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    return %v : tensor<64x64xbf16, #l>
  }

  // CHECK-LABEL: func.func @waits_on_another_barrier
  // CHECK: tile_nv.mbarrier_arrive {{.*}}per_warp
  // CHECK-NEXT: tile_nv.mbarrier_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  func.func @waits_on_another_barrier(%d: !desc) -> tensor<64x64xbf16, #l> {
    %c0 = arith.constant 0 : i32
    %full = tile.local_alloc : () -> !bar
    %e = tile.local_alloc : () -> !bar
    %f = tile.local_alloc : () -> !bar
    %buf = tile.local_alloc : () -> !buf
    tile_nv.mbarrier_init %full, 1 : !bar
    tile_nv.mbarrier_init %e, 8 : !bar
    tile_nv.mbarrier_init %f, 1 : !bar
    tile_nv.mbarrier_expect %full, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    tile_nv.mbarrier_wait %full, %c0 : !bar, i32
    %v = tile.local_load %buf : !buf -> tensor<64x64xbf16, #l>
    tile_nv.mbarrier_arrive %e, 1 {per_warp} : !bar
    tile_nv.mbarrier_wait %f, %c0 : !bar, i32
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    return %v : tensor<64x64xbf16, #l>
  }

  // CHECK-LABEL: func.func @predicated_wait
  // CHECK: tile_nv.mbarrier_arrive {{.*}}per_warp
  // CHECK-NEXT: tile_nv.mbarrier_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  func.func @predicated_wait(%d: !desc, %p: i1) -> tensor<64x64xbf16, #l> {
    %c0 = arith.constant 0 : i32
    %full = tile.local_alloc : () -> !bar
    %e = tile.local_alloc : () -> !bar
    %f = tile.local_alloc : () -> !bar
    %buf = tile.local_alloc : () -> !buf
    tile_nv.mbarrier_init %full, 1 : !bar
    tile_nv.mbarrier_init %e, 8 : !bar
    tile_nv.mbarrier_init %f, 1 : !bar
    tile_nv.mbarrier_expect %full, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    tile_nv.mbarrier_wait %full, %c0 : !bar, i32
    %v = tile.local_load %buf : !buf -> tensor<64x64xbf16, #l>
    tile_nv.mbarrier_arrive %e, 1 {per_warp} : !bar
    tile_nv.mbarrier_wait %e, %c0, %p : !bar, i32
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    return %v : tensor<64x64xbf16, #l>
  }

  // CHECK-LABEL: func.func @init_count_below_the_warps
  // CHECK: tile_nv.mbarrier_arrive {{.*}}per_warp
  // CHECK-NEXT: tile_nv.mbarrier_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  func.func @init_count_below_the_warps(%d: !desc) -> tensor<64x64xbf16, #l> {
    %c0 = arith.constant 0 : i32
    %full = tile.local_alloc : () -> !bar
    %e = tile.local_alloc : () -> !bar
    %buf = tile.local_alloc : () -> !buf
    tile_nv.mbarrier_init %full, 1 : !bar
    tile_nv.mbarrier_init %e, 1 : !bar
    tile_nv.mbarrier_expect %full, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    tile_nv.mbarrier_wait %full, %c0 : !bar, i32
    %v = tile.local_load %buf : !buf -> tensor<64x64xbf16, #l>
    tile_nv.mbarrier_arrive %e, 1 {per_warp} : !bar
    tile_nv.mbarrier_wait %e, %c0 : !bar, i32
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    return %v : tensor<64x64xbf16, #l>
  }

  // A wait by the elected warp alone orders the released read before that
  // warp's TMA refill (no barrier), not before the threads' own store into
  // the same bytes (a barrier).
  // CHECK-LABEL: func.func @elected_warp_wait_then_refill
  // CHECK: tile_nv.mbarrier_wait {{.*}}elected_warp
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  func.func @elected_warp_wait_then_refill(%d: !desc) -> tensor<64x64xbf16, #l> {
    %c0 = arith.constant 0 : i32
    %full = tile.local_alloc : () -> !bar
    %e = tile.local_alloc : () -> !bar
    %buf = tile.local_alloc : () -> !buf
    tile_nv.mbarrier_init %full, 1 : !bar
    tile_nv.mbarrier_init %e, 8 : !bar
    tile_nv.mbarrier_expect %full, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    tile_nv.mbarrier_wait %full, %c0 : !bar, i32
    %r = tile.local_load %buf : !buf -> tensor<64x64xbf16, #l>
    tile_nv.mbarrier_arrive %e, 1 {per_warp} : !bar
    tile_nv.mbarrier_wait %e, %c0 {elected_warp} : !bar, i32
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    return %r : tensor<64x64xbf16, #l>
  }

  // CHECK-LABEL: func.func @elected_warp_wait_then_store
  // CHECK: tile_nv.mbarrier_wait {{.*}}elected_warp
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile.local_store
  func.func @elected_warp_wait_then_store(%d: !desc, %v: tensor<64x64xbf16, #l2>) -> tensor<64x64xbf16, #l> {
    %c0 = arith.constant 0 : i32
    %full = tile.local_alloc : () -> !bar
    %e = tile.local_alloc : () -> !bar
    %buf = tile.local_alloc : () -> !buf
    tile_nv.mbarrier_init %full, 1 : !bar
    tile_nv.mbarrier_init %e, 8 : !bar
    tile_nv.mbarrier_expect %full, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    tile_nv.mbarrier_wait %full, %c0 : !bar, i32
    %r = tile.local_load %buf : !buf -> tensor<64x64xbf16, #l>
    tile_nv.mbarrier_arrive %e, 1 {per_warp} : !bar
    tile_nv.mbarrier_wait %e, %c0 {elected_warp} : !bar, i32
    tile.local_store %v, %buf : tensor<64x64xbf16, #l2> -> !buf
    return %r : tensor<64x64xbf16, #l>
  }

  // CHECK-LABEL: func.func @one_thread_arrival
  // CHECK: tile.local_load
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.mbarrier_arrive
  // CHECK-NEXT: tile_nv.mbarrier_wait
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  func.func @one_thread_arrival(%d: !desc) -> tensor<64x64xbf16, #l> {
    %c0 = arith.constant 0 : i32
    %full = tile.local_alloc : () -> !bar
    %e = tile.local_alloc : () -> !bar
    %f = tile.local_alloc : () -> !bar
    %buf = tile.local_alloc : () -> !buf
    tile_nv.mbarrier_init %full, 1 : !bar
    tile_nv.mbarrier_init %e, 8 : !bar
    tile_nv.mbarrier_init %f, 1 : !bar
    tile_nv.mbarrier_expect %full, 8192 : !bar
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    tile_nv.mbarrier_wait %full, %c0 : !bar, i32
    %v = tile.local_load %buf : !buf -> tensor<64x64xbf16, #l>
    tile_nv.mbarrier_arrive %e, 1 : !bar
    tile_nv.mbarrier_wait %e, %c0 : !bar, i32
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %full, %buf : !desc, !bar, !buf
    return %v : tensor<64x64xbf16, #l>
  }
}
