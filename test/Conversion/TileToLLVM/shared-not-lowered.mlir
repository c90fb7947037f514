// REQUIRES: nvidia
// RUN: not kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_90a num-warps=4" 2>&1 | FileCheck %s

// What the shared-memory lowering cannot do yet is an error at the op, not a
// failure to legalize.

// A buffer passed as a kernel's argument (control flow may carry buffers:
// shared-phi.mlir).
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK: shared-not-lowered.mlir:[[@LINE+1]]:16: error: a shared-memory buffer passed as a function argument cannot be lowered: allocate buffers inside the kernel (helpers are inlined, so buffers pass to them freely)
  func.func @k(%b: !tile.memdesc<128xf32, #sh, mutable>) {
    return
  }
}

// -----

// A whole ring read at once (read a slot with tile.memdesc_index instead).
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#l = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @ring_at_once() {
    %r = tile.local_alloc {tile.scratch_offset = 0 : i32} : () -> !tile.memdesc<2x128xf32, #sh, mutable>
    // CHECK: shared-not-lowered.mlir:[[@LINE+1]]:10: error: 'tile.local_load' op cannot address '!tile.memdesc<2x128xf32
    %t = tile.local_load %r : !tile.memdesc<2x128xf32, #sh, mutable> -> tensor<2x128xf32, #l>
    return
  }
}
