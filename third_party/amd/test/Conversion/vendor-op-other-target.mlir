// REQUIRES: nvidia
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics

// A tile_amd op in a kernel compiled for an NVIDIA chip is an error at the
// op, not an op the lowering leaves behind.
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @on_nvidia(%x: !tile.ptr<f32>, %o: tensor<128xi32, #l>, %v: tensor<128xf32, #l>) {
    // expected-error @+1 {{'tile_amd.buffer_store' op is an op of the tile_amd dialect, which targets of cuda cannot lower (it is for another vendor's chips)}}
    tile_amd.buffer_store %v, %x[%o] : tensor<128xf32, #l>, !tile.ptr<f32>, tensor<128xi32, #l>
    return
  }
}
