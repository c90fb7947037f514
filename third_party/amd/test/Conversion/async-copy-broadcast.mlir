// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=hip:gfx942" -verify-diagnostics

// A layout whose warps repeat each other's elements (8 warps over 256
// elements of 64-lane rows: two warps per element) would leave whole waves
// without a copy, which the instruction counts of the waits do not model:
// an error at the op for both copy forms, from one check.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @buffer_broadcast(%x: !tile.ptr<f32>, %o: tensor<256xi32, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    // expected-error @+1 {{'tile_amd.buffer_load_to_local' op this async copy (with broadcast threads) is not lowered for hip:gfx942 yet: give the pointers a layout in which every thread owns distinct elements}}
    %t = tile_amd.buffer_load_to_local %x[%o], %b : !tile.ptr<f32>, tensor<256xi32, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @global_broadcast(%p: tensor<256x!tile.ptr<f32>, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    // expected-error @+1 {{'tile.async_copy_global_to_local' op this async copy (with broadcast threads) is not lowered for hip:gfx942 yet}}
    %t = tile.async_copy_global_to_local %p, %b : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}
