// CMD: build/bin/kiln-opt test/fuzz/crashes/opt-timeout-16M-element-tensor.mlir '--kiln-to-llvm=target=hip:gfx942 num-warps=4'
// Was: time-out (> 10 s) lowering a 2^24-element arange, 65536 registers per thread (fixed by 19:53 UTC:
// "needs 65536 registers per thread" error). Found by seed 1 (shape 1024 -> 16777216 in
// convert-tile-to-llvm-amd.mlir); 2^20 elements on cuda:sm_90a timed out the same way.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @arange() -> tensor<16777216xi32, #l> {
    %r = tile.arange 0, 16777216 : tensor<16777216xi32, #l>
    return %r : tensor<16777216xi32, #l>
  }
}
