// RUN: kiln-opt %s --tile-allocate-shared-memory="target=cuda:sm_90a" --tile-prepare-warp-specialize="target=cuda:sm_90a" | FileCheck %s

// A warp_specialize inside a loop whose worker stores into a ring slot chosen
// by the loop's counter: the worker cannot recompute the counter, so the slot
// index (i % 2) is passed through the op's scratch, stored by the kernel's
// warps before each call, and the worker recomputes the slot's view from the
// loaded index; the counter it uses directly (i) is passed too.
// CHECK-LABEL: func.func public @ring_in_loop
// CHECK: scf.for %[[I:.*]] = {{.*}} : i32 {
// CHECK: %[[SLOTIDX:.*]] = arith.remsi %[[I]]
// CHECK: nvvm.barrier0
// CHECK: llvm.store %[[I]], %{{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.store %[[SLOTIDX]], %{{.*}} : i32, !llvm.ptr<3>
// CHECK: tile.warp_specialize partition_num_warps = [1]
// CHECK: } partitions {
// CHECK: %[[LI:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: %[[LSLOT:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: %[[VIEW:.*]] = tile.memdesc_index %{{.*}}[%[[LSLOT]]]
// CHECK: tile.splat %[[LI]]
// CHECK: tile.local_store %{{.*}}, %[[VIEW]]
#blocked = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#shared = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @ring_in_loop(%out: !tile.ptr<i32>, %n: i32) {
    %ring = tile.local_alloc : () -> !tile.memdesc<2x64xi32, #shared, mutable>
    %r = tile.arange 0, 64 : tensor<64xi32, #blocked>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %c2 = arith.constant 2 : i32
      %k = arith.remsi %i, %c2 : i32
      %slot = tile.memdesc_index %ring[%k] : !tile.memdesc<2x64xi32, #shared, mutable> -> !tile.memdesc<64xi32, #shared, mutable, 2x64>
      tile.warp_specialize partition_num_warps = [1] {
        tile.warp_yield
      } partitions {
        %v = tile.splat %i : tensor<64xi32, #blocked1>
        tile.local_store %v, %slot : tensor<64xi32, #blocked1> -> !tile.memdesc<64xi32, #shared, mutable, 2x64>
        tile.warp_yield
      }
      %back = tile.local_load %slot : !tile.memdesc<64xi32, #shared, mutable, 2x64> -> tensor<64xi32, #blocked>
      %p = tile.splat %out : tensor<64x!tile.ptr<i32>, #blocked>
      %q = tile.addptr %p, %r : tensor<64x!tile.ptr<i32>, #blocked>, tensor<64xi32, #blocked>
      tile.store %q, %back : tensor<64x!tile.ptr<i32>, #blocked>
    }
    return
  }
}
