// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_80" -verify-diagnostics

// Layouts that do not place the elements where mma.sync has them are one
// diagnostic at the op, naming the operand and the first basis that differs.

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bl = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @acc_blocked(%a: tensor<64x32xbf16, #opA>, %b: tensor<32x64xbf16, #opB>, %c: tensor<64x64xf32, #bl>) -> tensor<64x64xf32, #bl> {
    // expected-error @+1 {{the accumulator's layout is not the mma.sync one: lane bit 0 moves by [0, 8], the instruction's by [0, 2]}}
    %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf32, #bl>
    return %d : tensor<64x64xf32, #bl>
  }
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @a_kwidth(%a: tensor<64x32xbf16, #opA>, %b: tensor<32x64xbf16, #opB>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    // a and b must order K the same way (one k_width): b is checked against a.
    // expected-error @+1 {{b's layout is not the mma.sync one: lane bit 0 moves by [2, 0], the instruction's by [4, 0]}}
    %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf32, #mma>
    return %d : tensor<64x64xf32, #mma>
  }
}

// -----

#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#other = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #other, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @a_warps(%a: tensor<64x32xbf16, #opA>, %b: tensor<32x64xbf16, #opB>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    // expected-error @+1 {{a's layout is not the mma.sync one: warp bit 0 moves the operands by [16 rows, 8 columns] but the accumulator by [0, 8]}}
    %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf32, #mma>
    return %d : tensor<64x64xf32, #mma>
  }
}
