// REQUIRES: amd
// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=hip:gfx942" -verify-diagnostics -o /dev/null

// K shorter than k_width (each lane's registers would hold K values twice):
// an error at the op, before anything is rewritten. (K shorter than the K
// tile of k_width x the lane groups is lowered: mfma.mlir.)
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 8}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @short_k(%a: tensor<32x4xf16, #a>, %b: tensor<4x32xf16, #b>, %c: tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc> {
    // expected-error @+1 {{K = 4 is shorter than k_width 8 (use a k_width of at most 4)}}
    %d = tile_amd.mfma %a, %b, %c : tensor<32x4xf16, #a>, tensor<4x32xf16, #b> -> tensor<32x32xf32, #acc>
    return %d : tensor<32x32xf32, #acc>
  }
}
