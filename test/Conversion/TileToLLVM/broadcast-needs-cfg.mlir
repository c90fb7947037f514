// RUN: kiln-opt %s -split-input-file --tile-allocate-shared-memory --convert-tile-to-llvm="target=cuda:sm_90a" -verify-diagnostics

// An atomic on elements several threads hold, and a gather across warps,
// branch so that one thread of each element's holders acts: they are
// lowered in a function's control-flow graph. convert-tile-to-llvm run by
// hand on IR that still has scf.if says so at the op (kiln-to-llvm runs
// convert-scf-to-cf first).
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @atomic_in_if(%p: tensor<32x!tile.ptr<i32>, #l>, %v: tensor<32xi32, #l>, %c: i1) {
    scf.if %c {
      // expected-error @+2 {{'tile.atomic_rmw' op is lowered with branches, so it must be in a function's control-flow graph: run convert-scf-to-cf first (kiln-to-llvm does)}}
      // expected-error @+1 {{failed to legalize operation 'tile.atomic_rmw'}}
      %o = tile.atomic_rmw "add", %p, %v {sem = "relaxed", scope = "gpu"} : tensor<32x!tile.ptr<i32>, #l>
    }
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @gather_in_if(%s: tensor<128xf32, #l>, %i: tensor<128xi32, #l>, %c: i1) {
    scf.if %c {
      // expected-error @+2 {{'tile.gather' op is lowered with branches, so it must be in a function's control-flow graph: run convert-scf-to-cf first (kiln-to-llvm does)}}
      // expected-error @+1 {{failed to legalize operation 'tile.gather'}}
      %g = tile.gather %s[%i] {axis = 0 : i32} : (tensor<128xf32, #l>, tensor<128xi32, #l>) -> tensor<128xf32, #l>
    }
    return
  }
}
