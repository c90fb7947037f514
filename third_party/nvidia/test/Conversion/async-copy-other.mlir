// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_80" -verify-diagnostics

// cp.async writes zeros where the mask is false (src-size 0): a non-zero
// `other` would need a second, ordered write, which the NVIDIA lowering does
// not make. An error at the copy, before anything is rewritten.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @other_nonzero(%p: tensor<128x!tile.ptr<f32>, #l>, %m: tensor<128xi1, #l>) {
    %two = arith.constant dense<2.0> : tensor<128xf32, #l>
    %b = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    // expected-error @+1 {{'tile.async_copy_global_to_local' op a non-zero 'other' is not lowered for cuda:sm_80: the copy writes zeros where the mask is false (store 'other' after the wait instead)}}
    %t = tile.async_copy_global_to_local %p, %b, %m, %two : tensor<128x!tile.ptr<f32>, #l> -> !tile.memdesc<128xf32, #sh, mutable>
    return
  }
}

// -----

// A zero `other` is what cp.async does anyway: accepted.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @other_zero(%p: tensor<128x!tile.ptr<f32>, #l>, %m: tensor<128xi1, #l>) {
    %z = arith.constant dense<0.0> : tensor<128xf32, #l>
    %b = tile.local_alloc : () -> !tile.memdesc<128xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %b, %m, %z : tensor<128x!tile.ptr<f32>, #l> -> !tile.memdesc<128xf32, #sh, mutable>
    return
  }
}
