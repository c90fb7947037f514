// RUN: kiln-opt %s -split-input-file --tile-prepare-warp-specialize="target=cuda:sm_90a" -verify-diagnostics | FileCheck %s
// RUN: not kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_90a" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNPREPARED

// The pre-lowering step of warp specialization, as its own pass: each worker
// region gets its own copy of what it uses from above (the constant and the
// pointer arithmetic on a kernel argument), the op is marked prepared, and
// the module records the warps launched: 4 of the kernel's, plus the 2-warp
// worker padded to a whole warp group because it asks for registers = 8.
// CHECK: module attributes {{{.*}}tile.total_num_warps = 8 : i32
// CHECK-LABEL: func.func public @ws
// CHECK: tile.warp_specialize partition_num_warps = [2] partition_num_regs = [24] attributes {tile.partitions_prepared}
// CHECK: } partitions {
// CHECK-NEXT: %[[C:.*]] = arith.constant 64 : i32
// CHECK-NEXT: %[[P:.*]] = tile.addptr %arg0, %[[C]]
// CHECK: tile.splat %[[P]]
// Without the pass, the lowering refuses the op.
// UNPREPARED: error: 'tile.warp_specialize' op is not prepared for the lowering: run tile-prepare-warp-specialize first (kiln-to-llvm does)
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @ws(%arg0: !tile.ptr<i32>) {
    %c64 = arith.constant 64 : i32
    %q = tile.addptr %arg0, %c64 : !tile.ptr<i32>, i32
    tile.warp_specialize partition_num_warps = [2] partition_num_regs = [24] {
      tile.warp_yield
    } partitions {
      %2 = tile.arange 0, 64 : tensor<64xi32, #blocked>
      %3 = tile.splat %q : tensor<64x!tile.ptr<i32>, #blocked>
      %4 = tile.addptr %3, %2 : tensor<64x!tile.ptr<i32>, #blocked>, tensor<64xi32, #blocked>
      tile.store %4, %2 : tensor<64x!tile.ptr<i32>, #blocked>
      tile.warp_yield
    }
    return
  }
}

// -----

// A scalar no worker can recompute (a loop's result) goes through the op's
// shared-memory scratch, which the allocation pass assigns; without it, an
// error at the op.
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @carried(%arg0: !tile.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (i32) : i32 {
      %b = arith.addi %a, %i : i32
      scf.yield %b : i32
    }
    // expected-error @+1 {{'tile.warp_specialize' op passes 1 scalar(s) to its worker partitions through shared memory but has none assigned; run tile-allocate-shared-memory first}}
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      %p = tile.addptr %arg0, %s : !tile.ptr<i32>, i32
      %v = tile.splat %p : tensor<32x!tile.ptr<i32>, #blocked>
      %r = tile.arange 0, 32 : tensor<32xi32, #blocked>
      tile.store %v, %r : tensor<32x!tile.ptr<i32>, #blocked>
      tile.warp_yield
    }
    return
  }
}
