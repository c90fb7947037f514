// RUN: kiln-opt %s --convert-tile-to-llvm="target=cuda:sm_90a" -verify-diagnostics

// A token wait reaches the lowering without the count tile-insert-wait-counts
// computes (kiln-to-llvm runs it; a hand-written pipeline may not): a
// diagnostic at the wait, before anything is rewritten.
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @no_count() {
    %g = tile.async_commit_group
    // expected-error @+1 {{'tile.async_wait' op has no count; run tile-insert-wait-counts (part of kiln-to-llvm) to compute it from its tokens}}
    %w = tile.async_wait tokens %g
    return
  }
}
