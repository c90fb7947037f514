// RUN: kiln-opt %s -split-input-file --tile-nv-pipeline-tma | FileCheck %s
// RUN: kiln-opt %s -split-input-file --tile-nv-pipeline-tma --tile-nv-insert-proxy-fences --tile-nv-pipeline-wgmma --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s --check-prefix=BAR
// RUN: kiln-opt %s -split-input-file --tile-nv-pipeline-tma --tile-nv-insert-proxy-fences --tile-nv-pipeline-wgmma --tile-insert-wait-counts --tile-check-async-safety -o /dev/null
// RUN: kiln-opt %s -split-input-file --tile-nv-pipeline-tma --tile-nv-insert-proxy-fences --tile-nv-pipeline-wgmma --tile-allocate-shared-memory --tile-insert-barriers --test-barrier-oracle -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORACLE --implicit-check-not=witnessed
// (test-barrier-oracle: no schedule of the warps races with a refill or hangs.)
// ORACLE-COUNT-5: barrier oracle: 9 executions

// A TMA ring read by 8 warps (two warpgroups), each read done when the load
// returns: every warp releases slot j % 3 on its "empty" barrier (count 8,
// one per warp) after its reads, and the refill of that slot three
// iterations later waits, in the warp whose elected thread issues the copies,
// for the phase those arrivals complete (parity
// ((j / 3) & 1) ^ 1: a fresh barrier passes parity 1 at once, so the
// prologue's fills have no wait and the kernel loop's first returns at once;
// unpredicated past the loop's end, where it still returns). The barrier pass then puts no CTA barrier
// before the refill: the warps may drift apart by up to two iterations.

// CHECK-LABEL: func.func @released_by_warps
// CHECK: %[[FULL:.*]] = tile.local_alloc : () -> !tile.memdesc<3x1xi64
// CHECK: %[[EMPTY:.*]] = tile.local_alloc : () -> !tile.memdesc<3x1xi64
// CHECK: tile_nv.mbarrier_init {{.*}}, 1 :
// CHECK: tile_nv.mbarrier_init {{.*}}, 8 :
// CHECK: tile_nv.mbarrier_init {{.*}}, 1 :
// CHECK: tile_nv.mbarrier_init {{.*}}, 8 :
// CHECK: tile_nv.mbarrier_init {{.*}}, 1 :
// CHECK: tile_nv.mbarrier_init {{.*}}, 8 :
// CHECK-NOT: tile.unpredicated
// CHECK: scf.for %[[J:[a-z0-9_]+]] =
// CHECK:   %[[R:.*]] = arith.divsi
// CHECK:   %[[O:.*]] = arith.andi %[[R]]
// CHECK:   %[[P:.*]] = arith.xori %[[O]]
// CHECK:   %[[E:.*]] = tile.memdesc_index %[[EMPTY]]
// CHECK:   tile_nv.mbarrier_wait %[[E]], %[[P]] {elected_warp, tile.pipeline_part = "kernel", tile.unpredicated}
// CHECK:   tile_nv.mbarrier_expect
// CHECK:   tile_nv.async_tma_copy_global_to_local
// CHECK:   tile_nv.mbarrier_wait %{{.*}}, %{{.*}} {tile.pipeline_part = "kernel"}
// CHECK:   tile.local_load
// CHECK:   tile_nv.mbarrier_arrive %{{.*}}, 1 {per_warp, tile.pipeline_part = "kernel"}
// CHECK: }
// CHECK-COUNT-6: tile_nv.mbarrier_invalidate

// BAR-LABEL: func.func @released_by_warps
// BAR: scf.for
// BAR-NOT: tile.barrier
// BAR: tile_nv.mbarrier_wait {{.*}}tile.unpredicated
// BAR-NEXT: tile_nv.mbarrier_expect
// BAR-NEXT: tile_nv.async_tma_copy_global_to_local
// BAR-NOT: tile.barrier
// BAR: tile_nv.mbarrier_arrive {{.*}}per_warp
// BAR-NEXT: scf.yield
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @released_by_warps(%d: !desc, %n: i32) -> tensor<64x64xbf16, #l> {
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %buf = tile.local_alloc : () -> !buf
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xbf16, #l>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %ph = %c0) -> (tensor<64x64xbf16, #l>, i32) : i32 {
      %row = arith.muli %i, %c64 : i32
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      tile_nv.async_tma_copy_global_to_local %d[%row, %c0], %bar, %buf : !desc, !bar, !buf
      tile_nv.mbarrier_wait %bar, %ph : !bar, i32
      %v = tile.local_load %buf : !buf -> tensor<64x64xbf16, #l>
      %a = arith.addf %acc, %v : tensor<64x64xbf16, #l>
      %next = arith.xori %ph, %c1 : i32
      scf.yield %a, %next : tensor<64x64xbf16, #l>, i32
    } {tile.num_stages = 3 : i32}
    tile_nv.mbarrier_invalidate %bar : !bar
    return %r#0 : tensor<64x64xbf16, #l>
  }
}

// -----

// The same loop on 4 warps (one warpgroup) keeps the CTA barrier before the
// refill: no empty barriers. It goes before the refill's expect, which arms
// the barrier every warp waited on last (no warp may still be polling it).
// CHECK-LABEL: func.func @one_warpgroup
// CHECK-NOT: per_warp
// CHECK: return
// BAR-LABEL: func.func @one_warpgroup
// BAR: scf.for
// BAR: tile.barrier
// BAR-NEXT: tile_nv.mbarrier_expect
// BAR-NEXT: tile_nv.async_tma_copy_global_to_local
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @one_warpgroup(%d: !desc, %n: i32) -> tensor<64x64xbf16, #l> {
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %buf = tile.local_alloc : () -> !buf
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<64x64xbf16, #l>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z, %ph = %c0) -> (tensor<64x64xbf16, #l>, i32) : i32 {
      %row = arith.muli %i, %c64 : i32
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      tile_nv.async_tma_copy_global_to_local %d[%row, %c0], %bar, %buf : !desc, !bar, !buf
      tile_nv.mbarrier_wait %bar, %ph : !bar, i32
      %v = tile.local_load %buf : !buf -> tensor<64x64xbf16, #l>
      %a = arith.addf %acc, %v : tensor<64x64xbf16, #l>
      %next = arith.xori %ph, %c1 : i32
      scf.yield %a, %next : tensor<64x64xbf16, #l>, i32
    } {tile.num_stages = 3 : i32}
    tile_nv.mbarrier_invalidate %bar : !bar
    return %r#0 : tensor<64x64xbf16, #l>
  }
}

// -----

// 8 warps and one wgmma that only accumulates: tile-nv-pipeline-wgmma keeps
// it in flight across iterations (a slot is still being read at the
// iteration's end), so the ring keeps the CTA barrier after its wait.
// CHECK-LABEL: func.func @wgmma_kept_in_flight
// CHECK-NOT: per_warp
// CHECK: return
// BAR-LABEL: func.func @wgmma_kept_in_flight
// BAR: scf.for
// BAR: tile_nv.warpgroup_dot_wait
// BAR: tile.barrier
// BAR: tile_nv.async_tma_copy_global_to_local
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
!desc = !tile.tensordesc<tensor<128x64xbf16, #nv>>
!bdesc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!abuf = !tile.memdesc<128x64xbf16, #nv, mutable>
!bbuf = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @wgmma_kept_in_flight(%ad: !desc, %bd: !bdesc, %n: i32) -> tensor<128x64xf32, #acc> {
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %a = tile.local_alloc : () -> !abuf
    %b = tile.local_alloc : () -> !bbuf
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %z, %ph = %c0) -> (tensor<128x64xf32, #acc>, i32) : i32 {
      %k = arith.muli %i, %c64 : i32
      tile_nv.mbarrier_expect %bar, 24576 : !bar
      tile_nv.async_tma_copy_global_to_local %ad[%c0, %k], %bar, %a : !desc, !bar, !abuf
      tile_nv.async_tma_copy_global_to_local %bd[%k, %c0], %bar, %b : !bdesc, !bar, !bbuf
      tile_nv.mbarrier_wait %bar, %ph : !bar, i32
      %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !bbuf -> !tile.memdesc<64x64xbf16, #nvt, mutable>
      %d = tile_nv.warpgroup_dot %a, %bt, %acc0 : !abuf, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<128x64xf32, #acc>
      %next = arith.xori %ph, %c1 : i32
      scf.yield %d, %next : tensor<128x64xf32, #acc>, i32
    } {tile.num_stages = 3 : i32}
    tile_nv.mbarrier_invalidate %bar : !bar
    return %r#0 : tensor<128x64xf32, #acc>
  }
}

// -----

// Two synchronous wgmmas read the ring on 8 warps (no wgmma kept in flight):
// the slots are released by every warp. With two stages the refill goes first
// in the iteration (its slot was released by the previous iteration's reads),
// the wait in the elected warp only; with three, after the reads.
// CHECK-LABEL: func.func @two_dots_two_stages
// CHECK: scf.for
// CHECK:   tile_nv.mbarrier_wait {{.*}}{elected_warp, tile.pipeline_part = "kernel", tile.unpredicated}
// CHECK:   tile_nv.async_tma_copy_global_to_local
// CHECK:   tile_nv.mbarrier_wait {{.*}}{tile.pipeline_part = "kernel"}
// CHECK:   tile_nv.warpgroup_dot
// CHECK:   tile_nv.warpgroup_dot
// CHECK:   tile_nv.mbarrier_arrive {{.*}}per_warp
// CHECK-NEXT: scf.yield
// CHECK-LABEL: func.func @two_dots_three_stages
// CHECK: scf.for
// CHECK:   tile_nv.mbarrier_wait {{.*}}{tile.pipeline_part = "kernel"}
// CHECK:   tile_nv.warpgroup_dot
// CHECK:   tile_nv.warpgroup_dot
// CHECK:   tile_nv.mbarrier_arrive {{.*}}per_warp
// CHECK:   tile_nv.mbarrier_wait {{.*}}{elected_warp, tile.pipeline_part = "kernel", tile.unpredicated}
// CHECK:   tile_nv.async_tma_copy_global_to_local
// CHECK: scf.yield
// BAR-LABEL: func.func @two_dots_two_stages
// BAR: scf.for
// BAR-NOT: tile.barrier
// BAR: scf.yield
// BAR-LABEL: func.func @two_dots_three_stages
// BAR: scf.for
// BAR-NOT: tile.barrier
// BAR: scf.yield
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
!desc = !tile.tensordesc<tensor<128x64xbf16, #nv>>
!bdesc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!abuf = !tile.memdesc<128x64xbf16, #nv, mutable>
!bbuf = !tile.memdesc<64x64xbf16, #nv, mutable>
!t = tensor<128x64xf32, #acc>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @two_dots_two_stages(%ad: !desc, %bd: !bdesc, %n: i32) -> (!t, !t) {
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %a = tile.local_alloc : () -> !abuf
    %b = tile.local_alloc : () -> !bbuf
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : !t
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %z, %y = %z, %ph = %c0) -> (!t, !t, i32) : i32 {
      %k = arith.muli %i, %c64 : i32
      tile_nv.mbarrier_expect %bar, 24576 : !bar
      tile_nv.async_tma_copy_global_to_local %ad[%c0, %k], %bar, %a : !desc, !bar, !abuf
      tile_nv.async_tma_copy_global_to_local %bd[%k, %c0], %bar, %b : !bdesc, !bar, !bbuf
      tile_nv.mbarrier_wait %bar, %ph : !bar, i32
      %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !bbuf -> !tile.memdesc<64x64xbf16, #nvt, mutable>
      %d = tile_nv.warpgroup_dot %a, %bt, %x : !abuf, !tile.memdesc<64x64xbf16, #nvt, mutable> -> !t
      %e = tile_nv.warpgroup_dot %a, %bt, %y : !abuf, !tile.memdesc<64x64xbf16, #nvt, mutable> -> !t
      %next = arith.xori %ph, %c1 : i32
      scf.yield %d, %e, %next : !t, !t, i32
    } {tile.num_stages = 2 : i32}
    tile_nv.mbarrier_invalidate %bar : !bar
    return %r#0, %r#1 : !t, !t
  }
  func.func @two_dots_three_stages(%ad: !desc, %bd: !bdesc, %n: i32) -> (!t, !t) {
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    %a = tile.local_alloc : () -> !abuf
    %b = tile.local_alloc : () -> !bbuf
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %z = arith.constant dense<0.0> : !t
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %z, %y = %z, %ph = %c0) -> (!t, !t, i32) : i32 {
      %k = arith.muli %i, %c64 : i32
      tile_nv.mbarrier_expect %bar, 24576 : !bar
      tile_nv.async_tma_copy_global_to_local %ad[%c0, %k], %bar, %a : !desc, !bar, !abuf
      tile_nv.async_tma_copy_global_to_local %bd[%k, %c0], %bar, %b : !bdesc, !bar, !bbuf
      tile_nv.mbarrier_wait %bar, %ph : !bar, i32
      %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !bbuf -> !tile.memdesc<64x64xbf16, #nvt, mutable>
      %d = tile_nv.warpgroup_dot %a, %bt, %x : !abuf, !tile.memdesc<64x64xbf16, #nvt, mutable> -> !t
      %e = tile_nv.warpgroup_dot %a, %bt, %y : !abuf, !tile.memdesc<64x64xbf16, #nvt, mutable> -> !t
      %next = arith.xori %ph, %c1 : i32
      scf.yield %d, %e, %next : !t, !t, i32
    } {tile.num_stages = 3 : i32}
    tile_nv.mbarrier_invalidate %bar : !bar
    return %r#0, %r#1 : !t, !t
  }
}
