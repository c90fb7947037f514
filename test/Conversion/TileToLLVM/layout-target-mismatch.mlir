// REQUIRES: nvidia
// RUN: not kiln-opt %s --convert-tile-to-llvm="target=cuda:sm_90a" 2>&1 | FileCheck %s

// Without tile.num_warps on the module, the layouts are still checked
// against the target before lowering (a 64-lane layout on a 32-lane target
// used to lower silently and skip half the elements).
#w = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]}>
module {
  func.func public @wrong_warp(%p: !tile.ptr<f32>) {
    // CHECK: layout-target-mismatch.mlir:[[@LINE+1]]:10: error: 'tile.arange' op layout {{.*}} has 64 threads per warp but the kernel is compiled for 32 (tile.threads_per_warp)
    %r = tile.arange 0, 512 : tensor<512xi32, #w>
    return
  }
}
