// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-scf-to-cf --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s

// x <= n is not constant over an aligned run of x even when n is a multiple
// of 16 (the run's first element can differ), so the masked access must stay
// scalar. x < n may vectorize.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @mask_sle
  // CHECK-NOT: vector<4xf32>
  // CHECK: llvm.return
  func.func public @mask_sle(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %ns = tile.splat %n : tensor<512xi32, #l>
    %m = arith.cmpi sle, %r, %ns : tensor<512xi32, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #l>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %v = tile.load %pp, %m : tensor<512x!tile.ptr<f32>, #l>
    tile.store %pp, %v, %m : tensor<512x!tile.ptr<f32>, #l>
    return
  }
  // n > x is the mirror of x < n.
  // CHECK-LABEL: llvm.func @mask_sgt_mirrored
  // CHECK: llvm.load {{.*}} -> vector<4xf32>
  func.func public @mask_sgt_mirrored(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %ns = tile.splat %n : tensor<512xi32, #l>
    %m = arith.cmpi sgt, %ns, %r : tensor<512xi32, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #l>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>, #l>, tensor<512xi32, #l>
    %v = tile.load %pp, %m : tensor<512x!tile.ptr<f32>, #l>
    tile.store %pp, %v, %m : tensor<512x!tile.ptr<f32>, #l>
    return
  }
}

// -----

// Loading pointers (pointee is a pointer) used to crash the axis analysis.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @load_pointers
  // CHECK: llvm.load {{.*}} -> vector<{{[0-9]+}}x!llvm.ptr<1>>
  func.func public @load_pointers(%p: !tile.ptr<!tile.ptr<f32>> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l>
    %ps = tile.splat %p : tensor<512x!tile.ptr<!tile.ptr<f32>>, #l>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<!tile.ptr<f32>>, #l>, tensor<512xi32, #l>
    %v = tile.load %pp : tensor<512x!tile.ptr<!tile.ptr<f32>>, #l>
    return
  }
}

// -----

// Only public functions that return nothing are kernels.
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @helper
  // CHECK-NOT: nvvm.kernel
  // CHECK-SAME: {
  func.func public @helper(%x: i32) -> i32 {
    return %x : i32
  }
}
