// CMD: build/bin/kiln-opt test/fuzz/crashes/opt-translate-timeout-1024-registers-per-thread.mlir '--kiln-to-llvm=target=hip:gfx942 num-warps=4' | build/bin/kiln-translate --target=hip:gfx942 --emit=amdgcn -
// Was: time-out (fixed 20:20 UTC by lowering the limit to 2^9 registers per thread: now the
// "needs 1024 registers per thread" error). kiln-translate needed ~15 s (idle 2-core machine; kiln-opt takes 0.1 s) for hip:gfx942 when every thread
// holds 1024 elements, the most that the registers-per-thread limit allows: two masked loads, an add and a
// masked store of 1024 registers each, far beyond gfx942's 512 VGPRs. The same kernel with 32 lanes takes ~1 s
// on cuda:sm_90a. Found by seed 1 (sizePerThread 4 -> 4096 in convert-tile-to-llvm-amd.mlir, ~12 s then).
#l = #tile.blocked<{sizePerThread = [1024], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func public @k(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %ns = tile.splat %n : tensor<1024xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #l>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #l>
    %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %v = tile.load %xp, %m : tensor<1024x!tile.ptr<f32>, #l>
    %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>, #l>
    %yp = tile.addptr %ys, %r : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %w = tile.load %yp, %m : tensor<1024x!tile.ptr<f32>, #l>
    %s = arith.addf %v, %w : tensor<1024xf32, #l>
    tile.store %yp, %s, %m : tensor<1024x!tile.ptr<f32>, #l>
    return
  }
}
