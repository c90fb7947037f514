// RUN: kiln-opt %s --tile-allocate-shared-memory --convert-tile-to-llvm="target=hip:gfx942" -verify-diagnostics

// A masked direct-to-LDS copy is lowered with a branch, which needs the
// function's control-flow graph: convert-tile-to-llvm run by hand on IR that
// still has scf.for says so at the copy (kiln-to-llvm runs convert-scf-to-cf
// first).
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @in_loop(%p: tensor<256x!tile.ptr<f32>, #l>, %m: tensor<256xi1, #l>, %n: index) {
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+2 {{'tile.async_copy_global_to_local' op is lowered with a branch, so it must be in a function's control-flow graph: run convert-scf-to-cf first (kiln-to-llvm does)}}
      // expected-error @+1 {{failed to legalize operation 'tile.async_copy_global_to_local'}}
      %t = tile.async_copy_global_to_local %p, %b, %m : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    }
    return
  }
}
