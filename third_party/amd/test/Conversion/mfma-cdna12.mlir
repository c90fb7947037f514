// REQUIRES: amd
// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=hip:gfx90a" | FileCheck %s
// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=hip:gfx908" | FileCheck %s

// tile_amd.mfma with CDNA1/CDNA2 layouts (versions 1 and 2; CDNA2's chip runs
// CDNA1's forms too): int8 four a lane packed into one i32 register
// (v_mfma_i32_32x32x8i8), bf16 two a lane as vector<2xi16>
// (v_mfma_f32_32x32x4bf16). Which register feeds which slot is checked lane by
// lane in third_party/amd/test/python/test_amd_mfma_emulated.py.

// CHECK-LABEL: llvm.func @i8_four_a_lane
// CHECK: %[[AI:.*]] = llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK: %[[BI:.*]] = llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK: rocdl.mfma.i32.32x32x8i8 %[[AI]], %[[BI]], %{{.*}} : (i32, i32, vector<16xi32>, i32, i32, i32) -> vector<16xi32>
#acc = #tile_amd.mfma<{version = 1, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @i8_four_a_lane(%a: tensor<32x8xi8, #a>, %b: tensor<8x32xi8, #b>, %c: tensor<32x32xi32, #acc>) -> tensor<32x32xi32, #acc> {
    %d = tile_amd.mfma %a, %b, %c : tensor<32x8xi8, #a>, tensor<8x32xi8, #b> -> tensor<32x32xi32, #acc>
    return %d : tensor<32x32xi32, #acc>
  }
}

// -----

// CHECK-LABEL: llvm.func @bf16_two_a_lane
// CHECK: llvm.mlir.poison : vector<2xi16>
// CHECK: llvm.mlir.poison : vector<2xi16>
// CHECK: rocdl.mfma.f32.32x32x4bf16 %{{.*}}, %{{.*}}, %{{.*}} : (vector<2xi16>, vector<2xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
#acc = #tile_amd.mfma<{version = 1, instrShape = [32, 32, 4], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 2}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 2}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @bf16_two_a_lane(%a: tensor<32x4xbf16, #a>, %b: tensor<4x32xbf16, #b>, %c: tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc> {
    %d = tile_amd.mfma %a, %b, %c : tensor<32x4xbf16, #a>, tensor<4x32xbf16, #b> -> tensor<32x32xf32, #acc>
    return %d : tensor<32x32xf32, #acc>
  }
}
