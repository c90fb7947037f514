// RUN: kiln-opt %s -split-input-file --test-barrier-oracle -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// A slow warp: the oracle also plays each warp slow in turn (it moves only
// when no other warp can), so that the others may lap it. Here the kernel's
// 4 warps wait for `ready`'s phase 0, then one thread issues a TMA load that
// completes `copied`; the worker waits for `copied` and arrives on `ready`
// again, completing phase 1. A warp still polling for phase 0's parity then
// finds phase 2 in progress, of the same parity: it waits forever (a hang at
// its wait). A CTA barrier between the wait and the copy (every warp past the
// wait before anything lets the worker go on) removes it (@progress_barrier),
// which is the one tile-insert-barriers adds (insert-barriers-progress.mlir).
#nv = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 32, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!desc = !tile.tensordesc<tensor<32x64xf32, #nv>>
!buf = !tile.memdesc<32x64xf32, #nv, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // CHECK: :[[#@LINE+11]]:7: remark: barrier oracle: witnessed (hang)
  func.func @lapped(%d: !desc) {
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
}

// -----

#nv = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 32, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!desc = !tile.tensordesc<tensor<32x64xf32, #nv>>
!buf = !tile.memdesc<32x64xf32, #nv, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // CHECK-NOT: witnessed
  // CHECK: :[[#@LINE+1]]:3: remark: barrier oracle: 1 executions
  func.func @progress_barrier(%d: !desc) {
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
      tile.barrier
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
}
