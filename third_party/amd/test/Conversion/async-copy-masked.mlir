// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=hip:gfx942" -verify-diagnostics

// Direct-to-LDS loads skip exec-masked lanes, which then write nothing (not
// the zeros a masked async copy promises): Kiln does not lower masked AMD
// copies yet, and says so at the op.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @masked(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %s = tile.splat %x : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %s, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %ns = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #l>
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    // expected-error @+1 {{'tile.async_copy_global_to_local' op this async copy (masked, or with broadcast threads) is not lowered for hip:gfx942 yet}}
    %t = tile.async_copy_global_to_local %p, %b, %m : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}

// -----

// The buffer form handles masks in hardware (masked lanes read out of range
// and write zeros), but a layout whose warps repeat each other's elements
// (8 warps over 256 elements of 64-lane rows: two warps per element) would
// still need predication: the same diagnostic, from the same check.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @buffer_broadcast(%x: !tile.ptr<f32>, %o: tensor<256xi32, #l>) {
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    // expected-error @+1 {{'tile_amd.buffer_load_to_local' op this async copy (masked, or with broadcast threads) is not lowered for hip:gfx942 yet}}
    %t = tile_amd.buffer_load_to_local %x[%o], %b : !tile.ptr<f32>, tensor<256xi32, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    return
  }
}
