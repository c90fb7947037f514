// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_90a" --verify-diagnostics

// An mbarrier wait is one inline PTX block that spins inside itself, so it
// lowers anywhere, an scf region included. A predicated wait
// is a branch around it, which needs the function's control-flow graph: inside an scf region
// (convert-scf-to-cf not run, as kiln-to-llvm does) that is a diagnostic at
// the op, not a broken CFG; so is a wait of the elected warp alone (a branch
// on the warp index) where the kernel has more than one warp.

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @predicated_wait_in_loop(%n: i32, %phase: i32, %p: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bar = tile.local_alloc {tile.scratch_offset = 0 : i32} : () -> !tile.memdesc<1xi64, #sh, mutable>
    scf.for %i = %c0 to %n step %c1 : i32 {
      // expected-error @+2 {{failed to legalize operation 'tile_nv.mbarrier_wait'}}
      // expected-error @+1 {{'tile_nv.mbarrier_wait' op with a predicate is lowered with a branch, so it must be in a function's control-flow graph: run convert-scf-to-cf first (kiln-to-llvm does)}}
      tile_nv.mbarrier_wait %bar, %phase, %p : !tile.memdesc<1xi64, #sh, mutable>, i32
    }
    return
  }
}

// -----

#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @elected_warp_wait_in_loop(%n: i32, %phase: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bar = tile.local_alloc {tile.scratch_offset = 0 : i32} : () -> !tile.memdesc<1xi64, #sh, mutable>
    scf.for %i = %c0 to %n step %c1 : i32 {
      // expected-error @+2 {{failed to legalize operation 'tile_nv.mbarrier_wait'}}
      // expected-error @+1 {{'tile_nv.mbarrier_wait' op with elected_warp is lowered with a branch, so it must be in a function's control-flow graph: run convert-scf-to-cf first (kiln-to-llvm does)}}
      tile_nv.mbarrier_wait %bar, %phase {elected_warp} : !tile.memdesc<1xi64, #sh, mutable>, i32
    }
    return
  }
}
