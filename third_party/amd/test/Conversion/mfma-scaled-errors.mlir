// REQUIRES: amd
// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=hip:gfx950" -verify-diagnostics -o /dev/null

// A scale layout whose lanes are not the ones the instruction reads scales
// from: an error at the op, before anything is rewritten.
#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
#bad = #tile.linear<{register = [], lane = [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0], [8, 0]], warp = []}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @scale_lanes(%a: tensor<16x64xi8, #a>, %sa: tensor<16x4xi8, #bad>, %b: tensor<64x16xi8, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) -> tensor<16x16xf32, #acc> {
    // expected-error @+1 {{a_scale's layout is not the scaled mfma one: lane bit 0 moves by [0, 1], the instruction's by [1, 0] (use AMDMFMALayout(4, ...) for the accumulator, DotOperandLayout(0 or 1, it, 16 or 32) for a and b and get_mfma_scale_layout for their scales)}}
    %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<16x64xi8, #a>, tensor<16x4xi8, #bad>, tensor<64x16xi8, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
    return %d : tensor<16x16xf32, #acc>
  }
}

// -----

// Two warps along N: a's scales must be the same in both (a's rows do not
// change), not split across them.
#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 2], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#sa = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = [[16, 0]]}>
#sb = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = [[16, 0]]}>
module attributes {tile.num_warps = 2 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @scale_warps(%a: tensor<32x64xi8, #a>, %sa: tensor<32x4xi8, #sa>, %b: tensor<64x32xi8, #b>, %sb: tensor<32x4xi8, #sb>, %c: tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc> {
    // expected-error @+1 {{a_scale's layout is not the scaled mfma one: warp bit 0 moves it by [16, 0], the accumulator by [0, 16]; it must move by [0, 0]}}
    %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e2m1"} : tensor<32x64xi8, #a>, tensor<32x4xi8, #sa>, tensor<64x32xi8, #b>, tensor<32x4xi8, #sb> -> tensor<32x32xf32, #acc>
    return %d : tensor<32x32xf32, #acc>
  }
}

// -----

// kWidth 32 operands with scales that may differ per block: the instruction
// would apply one scale to 16 values of each of two blocks.
#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 32}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 32}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @kwidth32_scales(%a: tensor<16x128xf8E4M3FN, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<128x16xf8E4M3FN, #b>, %c: tensor<16x16xf32, #acc>) -> tensor<16x16xf32, #acc> {
    %sb = arith.constant dense<127> : tensor<16x4xi8, #s>
    // expected-error @+1 {{with kWidth 32 operands a_scale must be one constant E8M0 byte (None or an int in the DSL): the instruction scales 16 K values from each of two lane groups together, which a kWidth 32 layout fills from two different 32-value blocks; use kWidth 16 for per-block scales}}
    %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e4m3", bFormat = "e4m3"} : tensor<16x128xf8E4M3FN, #a>, tensor<16x4xi8, #s>, tensor<128x16xf8E4M3FN, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
    return %d : tensor<16x16xf32, #acc>
  }
}
