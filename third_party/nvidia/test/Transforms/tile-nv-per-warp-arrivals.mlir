// RUN: kiln-opt %s --split-input-file --tile-nv-per-warp-arrivals | FileCheck %s

// Arrivals of whole partitions become every warp's own: the barrier's counts
// are scaled by the least common multiple of W / gcd(W, count) over its
// arrivals (W: the arriving partition's warps), each arrival of W > 1 warps
// becomes {per_warp} with count * scale / W, a one-warp partition's stays one
// thread's with count * scale.

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: func.func @one_partition
// CHECK: tile_nv.mbarrier_init %{{.*}}, 4 :
// CHECK: tile_nv.mbarrier_arrive %{{.*}}, 1 {per_warp} :
// CHECK: tile_nv.mbarrier_arrive %{{.*}}, 2 {per_warp} :
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @one_partition(%phase: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_wait %bar, %phase : !tile.memdesc<1xi64, #sh, mutable>, i32
    tile_nv.mbarrier_arrive %bar, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_invalidate %bar : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}

// -----

// A ring's empty barriers: the 4 default warps release slots, the one-warp
// producer arrives once per slot up front (scale 4); the ready barriers are
// arrived by the producer alone (scale 1: left as they are).
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: func.func @ring
// CHECK: %[[EMPTY:.*]] = tile.local_alloc : () -> !tile.memdesc<2x1xi64
// CHECK: %[[READY:.*]] = tile.local_alloc : () -> !tile.memdesc<2x1xi64
// CHECK: %[[E0:.*]] = tile.memdesc_index %[[EMPTY]]
// CHECK: tile_nv.mbarrier_init %[[E0]], 4 :
// CHECK: %[[R0:.*]] = tile.memdesc_index %[[READY]]
// CHECK: tile_nv.mbarrier_init %[[R0]], 1 :
// CHECK: tile.warp_specialize
// CHECK: tile_nv.mbarrier_wait
// CHECK: tile_nv.mbarrier_arrive %{{.*}}, 1 {per_warp} :
// CHECK: partitions
// CHECK: tile_nv.mbarrier_arrive %{{.*}}, 4 :
// CHECK: tile_nv.mbarrier_wait
// CHECK: tile_nv.mbarrier_arrive %{{.*}}, 1 :
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @ring(%phase: i32, %slot: i32) {
    %empty = tile.local_alloc : () -> !tile.memdesc<2x1xi64, #sh, mutable>
    %ready = tile.local_alloc : () -> !tile.memdesc<2x1xi64, #sh, mutable>
    %e0 = tile.memdesc_index %empty[%slot] : !tile.memdesc<2x1xi64, #sh, mutable> -> !tile.memdesc<1xi64, #sh, mutable, 2x1>
    tile_nv.mbarrier_init %e0, 1 : !tile.memdesc<1xi64, #sh, mutable, 2x1>
    %r0 = tile.memdesc_index %ready[%slot] : !tile.memdesc<2x1xi64, #sh, mutable> -> !tile.memdesc<1xi64, #sh, mutable, 2x1>
    tile_nv.mbarrier_init %r0, 1 : !tile.memdesc<1xi64, #sh, mutable, 2x1>
    tile.warp_specialize partition_num_warps = [1] partition_num_regs = [40] {
      %r = tile.memdesc_index %ready[%slot] : !tile.memdesc<2x1xi64, #sh, mutable> -> !tile.memdesc<1xi64, #sh, mutable, 2x1>
      tile_nv.mbarrier_wait %r, %phase : !tile.memdesc<1xi64, #sh, mutable, 2x1>, i32
      %e = tile.memdesc_index %empty[%slot] : !tile.memdesc<2x1xi64, #sh, mutable> -> !tile.memdesc<1xi64, #sh, mutable, 2x1>
      tile_nv.mbarrier_arrive %e, 1 : !tile.memdesc<1xi64, #sh, mutable, 2x1>
      tile.warp_yield
    } partitions {
      %e = tile.memdesc_index %empty[%slot] : !tile.memdesc<2x1xi64, #sh, mutable> -> !tile.memdesc<1xi64, #sh, mutable, 2x1>
      tile_nv.mbarrier_arrive %e, 1 : !tile.memdesc<1xi64, #sh, mutable, 2x1>
      tile_nv.mbarrier_wait %e, %phase : !tile.memdesc<1xi64, #sh, mutable, 2x1>, i32
      %r = tile.memdesc_index %ready[%slot] : !tile.memdesc<2x1xi64, #sh, mutable> -> !tile.memdesc<1xi64, #sh, mutable, 2x1>
      tile_nv.mbarrier_arrive %r, 1 : !tile.memdesc<1xi64, #sh, mutable, 2x1>
      tile.warp_yield
    }
    return
  }
}

// -----

// An 8-warp worker and the 4 default warps on one barrier: scale 8, the
// default warps arrive 2 each, the worker's 1 each.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: func.func @mixed_warps
// CHECK: tile_nv.mbarrier_init %{{.*}}, 16 :
// CHECK: tile_nv.mbarrier_arrive %{{.*}}, 2 {per_warp} :
// CHECK: partitions
// CHECK: tile_nv.mbarrier_arrive %{{.*}}, 1 {per_warp} :
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @mixed_warps(%phase: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile.warp_specialize partition_num_warps = [8] partition_num_regs = [40] {
      tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
      tile_nv.mbarrier_wait %bar, %phase : !tile.memdesc<1xi64, #sh, mutable>, i32
      tile.warp_yield
    }
    return
  }
}

// -----

// A predicated arrival is the partition's (every warp skips or every warp
// arrives); a remote one brings each warp's arrival to every CTA of the set.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: func.func @predicated_and_remote
// CHECK: tile_nv.mbarrier_init %{{.*}}, 4 :
// CHECK: tile_nv.mbarrier_arrive %{{.*}}, 1, %{{.*}} {per_warp} :
// CHECK: tile_nv.mbarrier_init %{{.*}}, 8 :
// CHECK: tile_nv.mbarrier_arrive %{{.*}}, 1 {cta_mask = 1 : i32, per_warp} :
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @predicated_and_remote(%p: i1) {
    %b0 = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %b0, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %b0, 1, %p : !tile.memdesc<1xi64, #sh, mutable>
    %b1 = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %b1, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %b1, 1 {cta_mask = 1 : i32} : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}

// -----

// Left alone: a leader's arrival for a set of CTAs, a barrier counting fewer
// arrivals than a remote arrival brings (the kernel's error, which the
// lowering reports in the kernel's counts), a barrier armed with bytes or
// completed by a TMA copy, one carried through a loop, one-warp arrivals only
// (nothing to scale), another target's module.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
// CHECK-LABEL: func.func @kept
// CHECK-NOT: {per_warp}
// CHECK: return
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @kept(%phase: i32, %p: i1, %d: !tile.tensordesc<tensor<128x64xbf16, #nv>>, %c0: i32, %n: index) {
    %b0 = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %b0, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %b0, 1 {cta_mask = 1 : i32, from_leader} : !tile.memdesc<1xi64, #sh, mutable>
    %b1 = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %b1, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %b1, 1 {cta_mask = 1 : i32} : !tile.memdesc<1xi64, #sh, mutable>
    %b2 = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %b2, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %b2, 128 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %b2, 1 : !tile.memdesc<1xi64, #sh, mutable>
    %b3 = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    %buf = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    tile_nv.mbarrier_init %b3, 2 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %b3, %buf : !tile.tensordesc<tensor<128x64xbf16, #nv>>, !tile.memdesc<1xi64, #sh, mutable>, !tile.memdesc<128x64xbf16, #nv, mutable>
    tile_nv.mbarrier_arrive %b3, 1 : !tile.memdesc<1xi64, #sh, mutable>
    %b4 = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %b4, 1 : !tile.memdesc<1xi64, #sh, mutable>
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %out = scf.for %i = %i0 to %n step %i1 iter_args(%b = %b4) -> (!tile.memdesc<1xi64, #sh, mutable>) {
      tile_nv.mbarrier_arrive %b, 1 : !tile.memdesc<1xi64, #sh, mutable>
      scf.yield %b : !tile.memdesc<1xi64, #sh, mutable>
    }
    %b5 = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %b5, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile.warp_specialize partition_num_warps = [1] partition_num_regs = [40] {
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_arrive %b5, 1 : !tile.memdesc<1xi64, #sh, mutable>
      tile.warp_yield
    }
    return
  }
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: func.func @other_target
// CHECK: tile_nv.mbarrier_init %{{.*}}, 1 :
// CHECK-NOT: {per_warp}
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func @other_target() {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    return
  }
}

// -----

// A scalar that inline assembly computes in each thread may differ between
// the lanes of a warp, and so may a branch on it: a module with one keeps
// one-thread arrivals.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: func.func @thread_scalar
// CHECK: tile_nv.mbarrier_init %{{.*}}, 1 :
// CHECK-NOT: {per_warp}
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @thread_scalar() {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    %lane = tile.inline_asm "mov.u32 $0, %laneid;", "=r" {pure = true} : () -> i32
    %c0 = arith.constant 0 : i32
    %first = arith.cmpi eq, %lane, %c0 : i32
    scf.if %first {
      tile_nv.mbarrier_arrive %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    }
    return
  }
}
