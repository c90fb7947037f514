// RUN: kiln-opt %s --convert-tile-to-llvm="target=cuda:sm_90a" --verify-diagnostics

// mbarrier waits are lowered to a spin loop of blocks, which needs the
// function's control-flow graph: inside an scf region (convert-scf-to-cf not
// run, as kiln-to-llvm does) it is a diagnostic at the op, not a broken CFG.
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @wait_in_loop(%n: i32, %phase: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bar = tile.local_alloc {tile.scratch_offset = 0 : i32} : () -> !tile.memdesc<1xi64, #sh, mutable>
    scf.for %i = %c0 to %n step %c1 : i32 {
      // expected-error @+2 {{failed to legalize operation 'tile_nv.mbarrier_wait'}}
      // expected-error @+1 {{'tile_nv.mbarrier_wait' op is lowered with a loop, so it must be in a function's control-flow graph: run convert-scf-to-cf first (kiln-to-llvm does)}}
      tile_nv.mbarrier_wait %bar, %phase : !tile.memdesc<1xi64, #sh, mutable>, i32
    }
    return
  }
}
