// RUN: kiln-opt %s --tile-check-async-safety --verify-diagnostics
// RUN: kiln-opt %s --test-barrier-oracle -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=ORACLE

// The partition rule of tile-check-async-safety judged by the independent
// barrier oracle (every execution and warp schedule, vector clocks, the
// hardware's mbarrier phases): the one-shot hand-off the check accepts races
// in no execution (the oracle remarks a function's races before its count of
// executions); the hand-off it refuses, the consumer waiting on another
// barrier, races in the oracle too (the load lands on the read or after it).
// Two loads completing on one barrier under one expect of both their bytes
// are one phase: accepted, and race-free in the oracle; with a second expect
// between them the first load's landing can complete a phase of its own,
// which the consumer's wait may take: refused, and the oracle sees the read
// of the second buffer before it lands. So with one expect that announces
// only the first load's bytes: its landing completes the phase.
#nv = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 32, layoutRank = 2, transposed = false>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
!desc = !tile.tensordesc<tensor<32x64xf32, #nv>>
!buf = !tile.memdesc<32x64xf32, #nv, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // ORACLE-NOT: witnessed
  // ORACLE: :[[#@LINE+1]]:3: remark: barrier oracle: 1 executions
  func.func @one_load_handed_over(%d: !desc) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
      %v = tile.local_load %buf : !buf -> tensor<32x64xf32, #l>
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !desc, !bar, !buf
      tile.warp_yield
    }
    return
  }

  // ORACLE-DAG: :[[#@LINE+1]]:3: remark: barrier oracle: 1 executions
  func.func @wait_on_another_barrier(%d: !desc) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    %go = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile_nv.mbarrier_init %go, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      tile_nv.mbarrier_wait %go, %c0 : !bar, i32
      // ORACLE-DAG: :[[#@LINE+2]]:12: remark: barrier oracle: witnessed (read-before-landing)
      // expected-note @+1 {{the other partition's access}}
      %v = tile.local_load %buf : !buf -> tensor<32x64xf32, #l>
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_arrive %go, 1 : !bar
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      // ORACLE-DAG: :[[#@LINE+2]]:7: remark: barrier oracle: witnessed (write-after-read)
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' writes shared memory that another warp_specialize partition reads, with no barrier wait before it in this partition}}
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !desc, !bar, !buf
      tile.warp_yield
    }
    return
  }

  // ORACLE-NOT: witnessed
  // ORACLE: :[[#@LINE+1]]:3: remark: barrier oracle: 1 executions
  func.func @two_loads_one_expect(%d: !desc) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !buf
    %buf2 = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
      %v = tile.local_load %buf : !buf -> tensor<32x64xf32, #l>
      %w = tile.local_load %buf2 : !buf -> tensor<32x64xf32, #l>
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_expect %bar, 16384 : !bar
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !desc, !bar, !buf
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf2 : !desc, !bar, !buf
      tile.warp_yield
    }
    return
  }

  // ORACLE-DAG: :[[#@LINE+1]]:3: remark: barrier oracle: {{[0-9]+}} executions
  func.func @an_expect_between(%d: !desc) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !buf
    %buf2 = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
      %v = tile.local_load %buf : !buf -> tensor<32x64xf32, #l>
      // ORACLE-DAG: :[[#@LINE+2]]:12: remark: barrier oracle: witnessed (read-before-landing)
      // expected-note @+1 {{the other partition's access}}
      %w = tile.local_load %buf2 : !buf -> tensor<32x64xf32, #l>
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !desc, !bar, !buf
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' writes shared memory that another warp_specialize partition reads, with no barrier wait before it in this partition}}
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf2 : !desc, !bar, !buf
      tile.warp_yield
    }
    return
  }

  // ORACLE-DAG: :[[#@LINE+1]]:3: remark: barrier oracle: {{[0-9]+}} executions
  func.func @an_expect_of_one_load(%d: !desc) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : () -> !buf
    %buf2 = tile.local_alloc : () -> !buf
    %bar = tile.local_alloc : () -> !bar
    tile_nv.mbarrier_init %bar, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      tile_nv.mbarrier_wait %bar, %c0 : !bar, i32
      %v = tile.local_load %buf : !buf -> tensor<32x64xf32, #l>
      // ORACLE-DAG: :[[#@LINE+2]]:12: remark: barrier oracle: witnessed (read-before-landing)
      // expected-note @+1 {{the other partition's access}}
      %w = tile.local_load %buf2 : !buf -> tensor<32x64xf32, #l>
      tile.warp_yield
    } partitions {
      tile_nv.mbarrier_expect %bar, 8192 : !bar
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf : !desc, !bar, !buf
      // expected-error @+1 {{'tile_nv.async_tma_copy_global_to_local' writes shared memory that another warp_specialize partition reads, with no barrier wait before it in this partition}}
      tile_nv.async_tma_copy_global_to_local %d[%c0, %c0], %bar, %buf2 : !desc, !bar, !buf
      tile.warp_yield
    }
    return
  }
}
