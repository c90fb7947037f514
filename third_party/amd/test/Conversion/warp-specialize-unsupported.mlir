// REQUIRES: amd
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" -verify-diagnostics

// Warp specialization needs barriers of a subset of the warps (NVIDIA's named
// barriers); the AMD backend has none, so the op is an error at the op.
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx942", tile.threads_per_warp = 64 : i32} {
  func.func public @ws() {
    // expected-error @+1 {{is not supported on hip:gfx942: it needs barriers of a subset of the warps}}
    tile.warp_specialize partition_num_warps = [1] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }
    return
  }
}
