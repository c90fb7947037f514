// REQUIRES: amd
// RUN: kiln-opt %s --convert-tile-to-llvm="target=hip:gfx950" | FileCheck %s --check-prefix=G950

// gfx950: transposed fp8 x bf8 is the bf8 x fp8 instruction with the
// operands swapped; i8 double-rate packs 16 bytes as vector<4xi32>.
// G950-LABEL: llvm.func @cdna4
// G950: rocdl.mfma.f32.32x32x16.bf8.fp8 %{{.*}} : (i64, i64, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// G950: llvm.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// G950: rocdl.mfma.i32.32x32x32.i8 %{{.*}} : (vector<4xi32>, vector<4xi32>, vector<16xi32>, i32, i32, i32) -> vector<16xi32>
#acc = #tile_amd.mfma<{version = 4, instrShape = [32, 32, 16], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 8}>
#acc8 = #tile_amd.mfma<{version = 4, instrShape = [32, 32, 32], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a8 = #tile_amd.dot_op<{opIdx = 0, parent = #acc8, kWidth = 16}>
#b8 = #tile_amd.dot_op<{opIdx = 1, parent = #acc8, kWidth = 16}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @cdna4(%a: tensor<32x16xf8E4M3FN, #a>, %b: tensor<16x32xf8E5M2, #b>, %c: tensor<32x32xf32, #acc>,
                   %a8: tensor<32x32xi8, #a8>, %b8: tensor<32x32xi8, #b8>, %c8: tensor<32x32xi32, #acc8>) -> (tensor<32x32xf32, #acc>, tensor<32x32xi32, #acc8>) {
    %d = tile_amd.mfma %a, %b, %c : tensor<32x16xf8E4M3FN, #a>, tensor<16x32xf8E5M2, #b> -> tensor<32x32xf32, #acc>
    %d8 = tile_amd.mfma %a8, %b8, %c8 : tensor<32x32xi8, #a8>, tensor<32x32xi8, #b8> -> tensor<32x32xi32, #acc8>
    return %d, %d8 : tensor<32x32xf32, #acc>, tensor<32x32xi32, #acc8>
  }
}
