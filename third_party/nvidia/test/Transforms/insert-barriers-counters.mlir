// RUN: kiln-opt %s --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s
// RUN: kiln-opt %s --tile-allocate-shared-memory --tile-insert-barriers | kiln-opt --test-barrier-oracle -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=ORACLE --implicit-check-not=witnessed
// RUN: sed -e 's/%np2 = arith.addi %np1, %c1/%np2 = arith.addi %np1, %c0/' %s | kiln-opt --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=NEAR

// A persistent ring on one warpgroup with a producer and a consumer counter
// (a tile loop carries both; the K loop refills slot p % 4 two slots ahead of
// the slot c % 4 it waits for and reads with an async wgmma, waited for
// before the next is issued). The counters start the K loop 2 apart in every
// tile (valueDifference: both advance by 1, and the tile loop's yields keep
// them equal), so the refill's slot is never the one the warps last waited
// on or the in-flight wgmma reads (retired, for the whole warpgroup, before
// the refill): no CTA barrier in the K loop. The barrier oracle agrees
// (ORACLE). With the producer only one slot ahead (NEAR) the refill may hit
// the slot whose phase a slow warp still polls: the barrier stays.
// CHECK-LABEL: func.func @lockstep
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: tile.barrier
// CHECK: scf.yield
// NEAR-LABEL: func.func @lockstep
// NEAR: scf.for
// NEAR: scf.for
// NEAR: tile.barrier
// NEAR: scf.yield
// ORACLE: remark: barrier oracle: {{[0-9]+}} executions
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ring = !tile.memdesc<4x64x64xbf16, #nv, mutable>
!slot = !tile.memdesc<64x64xbf16, #nv, mutable, 4x64x64>
!slotT = !tile.memdesc<64x64xbf16, #nvt, mutable, 4x64x64>
!bars = !tile.memdesc<4x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, 4x1>
!a = tensor<64x64xf32, #acc>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  func.func @lockstep(%d: !desc, %tiles: i32, %k: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %z = arith.constant dense<0.0> : !a
    %ring = tile.local_alloc : () -> !ring
    %ready = tile.local_alloc : () -> !bars
    %b0 = tile.memdesc_index %ready[%c0] : !bars -> !bar
    tile_nv.mbarrier_init %b0, 1 : !bar
    %b1 = tile.memdesc_index %ready[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %b1, 1 : !bar
    %b2 = tile.memdesc_index %ready[%c2] : !bars -> !bar
    tile_nv.mbarrier_init %b2, 1 : !bar
    %b3 = tile.memdesc_index %ready[%c3] : !bars -> !bar
    tile_nv.mbarrier_init %b3, 1 : !bar
    %r:2 = scf.for %t = %c0 to %tiles step %c1 iter_args(%p = %c0, %c = %c0) -> (i32, i32) : i32 {
      // Two loads ahead.
      %s0 = arith.remsi %p, %c4 : i32
      %r0 = tile.memdesc_index %ready[%s0] : !bars -> !bar
      tile_nv.mbarrier_expect %r0, 8192 : !bar
      %a0 = tile.memdesc_index %ring[%s0] : !ring -> !slot
      tile_nv.async_tma_copy_global_to_local %d[%t, %c0], %r0, %a0 : !desc, !bar, !slot
      %np1 = arith.addi %p, %c1 : i32
      %s1 = arith.remsi %np1, %c4 : i32
      %r1 = tile.memdesc_index %ready[%s1] : !bars -> !bar
      tile_nv.mbarrier_expect %r1, 8192 : !bar
      %a1 = tile.memdesc_index %ring[%s1] : !ring -> !slot
      tile_nv.async_tma_copy_global_to_local %d[%t, %c1], %r1, %a1 : !desc, !bar, !slot
      %np2 = arith.addi %np1, %c1 : i32
      %x:3 = scf.for %i = %c0 to %k step %c1 iter_args(%pp = %np2, %cc = %c, %acc = %z) -> (i32, i32, !a) : i32 {
        %sp = arith.remsi %pp, %c4 : i32
        %rp = tile.memdesc_index %ready[%sp] : !bars -> !bar
        tile_nv.mbarrier_expect %rp, 8192 : !bar
        %ap = tile.memdesc_index %ring[%sp] : !ring -> !slot
        tile_nv.async_tma_copy_global_to_local %d[%t, %i], %rp, %ap : !desc, !bar, !slot
        %pn = arith.addi %pp, %c1 : i32
        %sc = arith.remsi %cc, %c4 : i32
        %q = arith.divsi %cc, %c4 : i32
        %ph = arith.andi %q, %c1 : i32
        %rc = tile.memdesc_index %ready[%sc] : !bars -> !bar
        tile_nv.mbarrier_wait %rc, %ph : !bar, i32
        %w = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (!a) -> !a
        %ac = tile.memdesc_index %ring[%sc] : !ring -> !slot
        %act = tile.memdesc_permute %ac {order = array<i32: 1, 0>} : !slot -> !slotT
        %dot = tile_nv.warpgroup_dot %ac, %act, %w {isAsync} : !slot, !slotT -> !a
        %cn = arith.addi %cc, %c1 : i32
        scf.yield %pn, %cn, %dot : i32, i32, !a
      }
      // The two slots still loaded: waited for and read.
      %d0 = tile_nv.warpgroup_dot_wait %x#2 {pendings = 0 : i32} : (!a) -> !a
      %e0 = arith.remsi %x#1, %c4 : i32
      %f0 = arith.divsi %x#1, %c4 : i32
      %g0 = arith.andi %f0, %c1 : i32
      %w0 = tile.memdesc_index %ready[%e0] : !bars -> !bar
      tile_nv.mbarrier_wait %w0, %g0 : !bar, i32
      %v0 = tile.memdesc_index %ring[%e0] : !ring -> !slot
      %v0t = tile.memdesc_permute %v0 {order = array<i32: 1, 0>} : !slot -> !slotT
      %y0 = tile_nv.warpgroup_dot %v0, %v0t, %d0 : !slot, !slotT -> !a
      %c_1 = arith.addi %x#1, %c1 : i32
      %e1 = arith.remsi %c_1, %c4 : i32
      %f1 = arith.divsi %c_1, %c4 : i32
      %g1 = arith.andi %f1, %c1 : i32
      %w1 = tile.memdesc_index %ready[%e1] : !bars -> !bar
      tile_nv.mbarrier_wait %w1, %g1 : !bar, i32
      %v1 = tile.memdesc_index %ring[%e1] : !ring -> !slot
      %v1t = tile.memdesc_permute %v1 {order = array<i32: 1, 0>} : !slot -> !slotT
      %y1 = tile_nv.warpgroup_dot %v1, %v1t, %y0 : !slot, !slotT -> !a
      %c_2 = arith.addi %c_1, %c1 : i32
      scf.yield %x#0, %c_2 : i32, i32
    }
    return
  }
}
