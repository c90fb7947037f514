// RUN: kiln-opt %s -split-input-file --tile-nv-pipeline-tma --tile-allocate-shared-memory --tile-insert-barriers --test-barrier-oracle -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASS --implicit-check-not=witnessed
// RUN: kiln-opt %s -split-input-file --tile-nv-pipeline-tma --tile-allocate-shared-memory --test-barrier-oracle -o /dev/null 2>&1 | FileCheck %s --check-prefix=BARE
// RUN: kiln-opt %s -split-input-file --tile-nv-pipeline-tma --tile-allocate-shared-memory --tile-insert-barriers -o %t
// RUN: grep -v "elected_warp" %t | kiln-opt -split-input-file --test-barrier-oracle -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWAIT
// RUN: grep -v "{per_warp" %t | kiln-opt -split-input-file --test-barrier-oracle -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOARRIVE

// test-barrier-oracle (tile-insert-barriers' independent check for writes that
// complete on a barrier) on the TMA rings tile-nv-pipeline-tma builds: the
// kernel's warps interleaved (round robin, warp 0 first, the last warp first)
// over every execution (the loop bound 0, 1, 2, 3, 5, 64, 200, 512 or 1000).
//
// After tile-insert-barriers no execution and schedule races or hangs:
// the 8-warp ring released per warp, the 4-warp ring with its CTA barrier.
// Without tile-insert-barriers the 8-warp ring still needs none (its
// empty barriers order the reads before each refill); the 4-warp ring's
// refill then races with the other warps' reads (and phases run ahead).
// And the oracle can fail: with the refill's wait deleted the
// refill races with reads of the slot; with the warps' arrivals deleted the
// wait for a released slot never returns.

// PASS: remark: barrier oracle: 9 executions
// PASS: remark: barrier oracle: 9 executions
// BARE-NOT: witnessed
// BARE: remark: barrier oracle: 9 executions
// BARE: remark: barrier oracle: witnessed (write-after-read)
// BARE: remark: barrier oracle: witnessed (hang)
// BARE: remark: barrier oracle: 9 executions
// NOWAIT: remark: barrier oracle: witnessed (write-after-read)
// NOWAIT: remark: barrier oracle: 9 executions
// NOWAIT-NOT: witnessed
// NOWAIT: remark: barrier oracle: 9 executions
// NOARRIVE: remark: barrier oracle: witnessed (hang)
// NOARRIVE-NEXT: tile_nv.mbarrier_wait {{.*}}elected_warp
// NOARRIVE: remark: barrier oracle: 9 executions
// NOARRIVE-NOT: witnessed
// NOARRIVE: remark: barrier oracle: 9 executions
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @eight_warps(%d: !desc, %n: i32) -> tensor<64x64xbf16, #l> {
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

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!bar = !tile.memdesc<1xi64, #sh, mutable>
!buf = !tile.memdesc<64x64xbf16, #nv, mutable>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @four_warps(%d: !desc, %n: i32) -> tensor<64x64xbf16, #l> {
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

// A kernel with warp_specialize is not judged: its partitions run other code
// on other warps, with bounds each loads for itself, which the oracle does not
// model; it says so rather than report a clean run.
// PASS: remark: barrier oracle: not judged (warp_specialize partitions are not modelled)
// BARE: remark: barrier oracle: not judged (warp_specialize partitions are not modelled)
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @partitions() {
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    return
  }
}
