// REQUIRES: nvidia
// RUN: not kiln-opt %s --convert-tile-to-llvm="target=cuda:sm_90a num-warps=4" 2>&1 | FileCheck %s

// Shared-memory buffers parse and verify, but their lowering is not there
// yet: the conversion says so at the op instead of failing to legalize.

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @k() {
    // CHECK: shared-not-lowered.mlir:[[@LINE+1]]:10: error: 'tile.local_alloc' op uses a shared-memory buffer (!tile.memdesc), which this Kiln cannot lower yet
    %b = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    return
  }
}
