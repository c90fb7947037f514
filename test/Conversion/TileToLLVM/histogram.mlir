// tile.histogram counts into its shared-memory scratch: zero the result
// registers' bins, barrier, one atomic add an element behind its range, mask
// and owner test, barrier, read the bins, barrier.
// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s

// CHECK-LABEL: llvm.func @histogram(
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[IN:.*]] = llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.and %[[IN]], %{{.*}} : i1
// CHECK: llvm.cond_br
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: nvvm.barrier0
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @histogram(%x: tensor<64xi32, #l>, %m: tensor<64xi1, #l>) -> tensor<256xi32, #l> {
    %h = tile.histogram %x, %m : tensor<64xi32, #l>, tensor<64xi1, #l> -> tensor<256xi32, #l>
    return %h : tensor<256xi32, #l>
  }
}

// -----

// Without the allocation pass the op has no scratch: an error at the op.
// RUN: not kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_90a" 2>&1 | FileCheck %s --check-prefix=NOSCRATCH
// NOSCRATCH: error: 'tile.histogram' op needs shared memory but has none assigned; run tile-allocate-shared-memory first
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @histogram_no_scratch(%x: tensor<64xi32, #l>) -> tensor<256xi32, #l> {
    %h = tile.histogram %x : tensor<64xi32, #l> -> tensor<256xi32, #l>
    return %h : tensor<256xi32, #l>
  }
}
