// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers | FileCheck %s
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers | kiln-opt -split-input-file --test-barrier-oracle -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=ORACLE --implicit-check-not=witnessed
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --tile-insert-barriers | grep -v "^ *tile.barrier$" | kiln-opt -split-input-file --test-barrier-oracle -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=MUTANT

// Progress: after every warp of a partition waited on a barrier, one
// thread's op that can make that barrier complete again -- an arrival,
// expect or copy on it, or a signal another partition waits on before it
// completes the waited barrier -- waits for a CTA barrier: a warp still
// polling would find a later phase of the same parity in progress and wait
// forever. The barrier oracle (with a slow warp in turn) agrees on every
// function (ORACLE); with the barriers deleted it sees a warp hang at its
// wait in each of the three functions that got one (MUTANT).
// ORACLE-COUNT-5: remark: barrier oracle: {{[0-9]+}} executions
// MUTANT-COUNT-3: remark: barrier oracle: witnessed (hang)

#nv = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 32, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!desc = !tile.tensordesc<tensor<32x64xf32, #nv>>
!buf = !tile.memdesc<32x64xf32, #nv, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // The kernel's warps wait for `ready`, then one thread's copy completes
  // `copied`, which the worker waits for before it arrives on `ready` again.
  // CHECK-LABEL: func.func @across_partitions
  // CHECK: tile.warp_specialize
  // CHECK: tile_nv.mbarrier_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  // CHECK: partitions
  // CHECK-NOT: tile.barrier
  // CHECK: tile.warp_yield
  func.func @across_partitions(%d: !desc) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = tile.local_alloc : () -> !buf
    %ready = tile.local_alloc : () -> !bar
    %copied = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %ready, 1 : !bar
    tile_nv.mbarrier_init %copied, 1 : !bar
    tile_nv.mbarrier_expect %copied, 8192 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      tile_nv.mbarrier_wait %ready, %c0 : !bar, i32
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %copied, %buf : !desc, !bar, !buf
      tile_nv.mbarrier_wait %copied, %c0 : !bar, i32
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_arrive %ready, 1 : !bar
      tile_nv.mbarrier_wait %copied, %c0 : !bar, i32
      tile_nv.mbarrier_arrive %ready, 1 : !bar
      tile_nv.mbarrier_wait %ready, %c1 : !bar, i32
      tile.warp_yield
    }
    return
  }

  // One partition: a wait for parity 1 on a fresh barrier returns at once;
  // the copy then completes phase 0, after which parity 1 is in progress.
  // CHECK-LABEL: func.func @same_barrier
  // CHECK: tile_nv.mbarrier_wait
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tile_nv.async_tma_copy_global_to_local
  func.func @same_barrier(%d: !desc) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = tile.local_alloc : () -> !buf
    %ready = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %ready, 1 : !bar
    tile_nv.mbarrier_expect %ready, 8192 : !bar
    tile_nv.mbarrier_wait %ready, %c1 : !bar, i32
    tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %ready, %buf : !desc, !bar, !buf
    tile_nv.mbarrier_wait %ready, %c0 : !bar, i32
    return
  }

  // Each warp arrives for itself after its own wait: no barrier.
  // CHECK-LABEL: func.func @per_warp
  // CHECK-NOT: tile.barrier
  // CHECK: return
  func.func @per_warp() {
    %c0 = arith.constant 0 : i32
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 4 : !bar
    tile_nv.mbarrier_arrive %bar, 1 {per_warp} : !bar
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    tile_nv.mbarrier_arrive %bar, 1 {per_warp} : !bar
    return
  }
}

// -----

// A wgmma of the whole partition (4 warps, one warpgroup) issued after the
// wait and retired before the arrival: every warp has issued it, so every
// warp has returned from the wait. No barrier before the one thread's
// arrival on the barrier it waited on.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // CHECK-LABEL: func.func @after_a_warpgroup_wgmma
  // CHECK: tile_nv.warpgroup_dot_wait
  // CHECK-NOT: tile.barrier
  // CHECK: tile_nv.mbarrier_arrive
  // CHECK-LABEL: func.func @before_the_wgmma_retires
  // CHECK: tile_nv.mbarrier_wait
  // CHECK: tile.barrier
  // CHECK-NEXT: tile_nv.mbarrier_arrive
  func.func @after_a_warpgroup_wgmma() -> tensor<64x64xf32, #acc> {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !buf
    %b = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_arrive %bar, 1 : !bar
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !buf -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %bt, %z {isAsync} : !buf, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    %r = tile_nv.warpgroup_dot_wait %d {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    tile_nv.mbarrier_arrive %bar, 1 : !bar
    return %r : tensor<64x64xf32, #acc>
  }

  // The same with the wgmma issued before the wait: its retirement says
  // nothing of the wait.
  func.func @before_the_wgmma_retires() -> tensor<64x64xf32, #acc> {
    %c0 = arith.constant 0 : i32
    %a = tile.local_alloc : () -> !buf
    %b = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_arrive %bar, 1 : !bar
    %bt = tile.memdesc_permute %b {order = array<i32: 1, 0>} : !buf -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %d = tile_nv.warpgroup_dot %a, %bt, %z {isAsync} : !buf, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
    %r = tile_nv.warpgroup_dot_wait %d {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
    tile_nv.mbarrier_arrive %bar, 1 : !bar
    return %r : tensor<64x64xf32, #acc>
  }
}
