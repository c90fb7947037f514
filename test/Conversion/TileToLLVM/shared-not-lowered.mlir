// REQUIRES: nvidia
// RUN: not kiln-opt %s --convert-tile-to-llvm="target=cuda:sm_90a num-warps=4" 2>&1 | FileCheck %s

// Shared buffers are lowered within a function; one passed as an argument
// is an error at the function, not a failure to legalize.

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK: shared-not-lowered.mlir:[[@LINE+1]]:3: error: 'func.func' op has a block argument of shared-memory buffer type (!tile.memdesc), which this Kiln cannot lower yet
  func.func @k(%b: !tile.memdesc<128xf32, #sh, mutable>) {
    return
  }
}
