// RUN: kiln-opt %s --tile-allocate-shared-memory="target=cuda:sm_90a" --tile-prepare-warp-specialize="target=cuda:sm_90a" | FileCheck %s

// Scalars a worker partition cannot recompute (a loop's i32 result, a
// branch's f32) go through the op's scratch, 8 bytes each: after a
// barrier the kernel's warps store them before the op, and the worker region
// loads them at its entry. What the worker can recompute (%q's pointer
// arithmetic on a kernel argument) it still recomputes. The dispatch word
// (the module's scratch_offset) follows them.
// CHECK: module attributes {{{.*}}tile.scratch_offset = 16 : i32, tile.shared = 24 : i32
// CHECK-LABEL: func.func public @captures
// CHECK: nvvm.barrier0
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @global_smem
// CHECK: llvm.store %[[S:.*]], %[[BASE]] : i32, !llvm.ptr<3>
// CHECK: %[[SLOT1:.*]] = llvm.getelementptr %[[BASE]][8]
// CHECK: llvm.store %{{.*}}, %[[SLOT1]] : f32, !llvm.ptr<3>
// CHECK: tile.warp_specialize partition_num_warps = [1]
// CHECK: } partitions {
// CHECK: %[[RB:.*]] = llvm.mlir.addressof @global_smem
// CHECK: %[[LS:.*]] = llvm.load %[[RB]] : !llvm.ptr<3> -> i32
// CHECK: %[[RS1:.*]] = llvm.getelementptr %[[RB]][8]
// CHECK: %[[LF:.*]] = llvm.load %[[RS1]] : !llvm.ptr<3> -> f32
// CHECK: tile.addptr %arg0, %[[LS]]
// CHECK: tile.splat %[[LF]]
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @captures(%arg0: !tile.ptr<i32>, %f: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (i32) : i32 {
      %b = arith.addi %a, %i : i32
      scf.yield %b : i32
    }
    %pos = arith.cmpi sgt, %n, %c0 : i32
    %x = scf.if %pos -> (f32) {
      %h = arith.constant 1.5 : f32
      scf.yield %h : f32
    } else {
      %t = arith.constant 2.5 : f32
      scf.yield %t : f32
    }
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      %p = tile.addptr %arg0, %s : !tile.ptr<i32>, i32
      %v = tile.splat %p : tensor<32x!tile.ptr<i32>, #blocked>
      %r = tile.arange 0, 32 : tensor<32xi32, #blocked>
      tile.store %v, %r : tensor<32x!tile.ptr<i32>, #blocked>
      %fs = tile.splat %x : tensor<32xf32, #blocked>
      %fp = tile.splat %f : tensor<32x!tile.ptr<f32>, #blocked>
      tile.store %fp, %fs : tensor<32x!tile.ptr<f32>, #blocked>
      tile.warp_yield
    }
    return
  }
}
