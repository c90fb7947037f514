// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" -verify-diagnostics

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
