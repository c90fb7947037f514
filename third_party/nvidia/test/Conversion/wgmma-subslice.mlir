// REQUIRES: ptxas
// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics | FileCheck %s

// wgmma reads a subslice of a swizzled buffer (Gluon's `smem.slice(64, 64, dim=0)`): the
// slice's elements sit at (the layout's offset XOR its start), so its descriptor addresses
// are the buffer's base plus (offset XOR start); each form is checked on those absolute
// offsets, as the hardware swizzles absolute addresses.

// Rows 64.. of a [128, 64] bf16 buffer with a 128-byte swizzle start 64 * 128 = 8192 bytes
// in (element 4096).
// CHECK-LABEL: llvm.func @rows_64_up
// CHECK: %[[C:.*]] = llvm.mlir.constant(4096 : i32) : i32
// CHECK: llvm.xor %{{.*}}, %[[C]] : i32
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @rows_64_up(%c: tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc> {
    %a = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    %s = tile.memdesc_subslice %a[64, 0] : !tile.memdesc<128x64xbf16, #nv, mutable> -> !tile.memdesc<64x64xbf16, #nv, mutable, 128x64>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %s, %b, %c : !tile.memdesc<64x64xbf16, #nv, mutable, 128x64>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }
}

// -----

// K columns 32.. of a 128-byte-swizzled row start 64 bytes into the swizzle atom (element
// 32): the hardware's XOR of absolute address bits still places every row, as for a K step
// inside the atom.
// CHECK-LABEL: llvm.func @k_32_up
// CHECK: %[[C:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: llvm.xor %{{.*}}, %[[C]] : i32
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#nvt64 = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @k_32_up(%c: tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<32x64xbf16, #nvt64, mutable>
    %s = tile.memdesc_subslice %a[0, 32] : !tile.memdesc<64x64xbf16, #nv, mutable> -> !tile.memdesc<64x32xbf16, #nv, mutable, 64x64>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %s, %b, %c : !tile.memdesc<64x32xbf16, #nv, mutable, 64x64>, !tile.memdesc<32x64xbf16, #nvt64, mutable> -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }
}

// -----

// Rows 0..63 of this layout are the 128-byte swizzle's, but row 64 starts one 16-byte unit
// into its row (element 4096 ^ 8): the slice's units are XORed with 1 where the hardware
// would add 1, so no descriptor form reads it.
#odd = #tile.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 8]], shape = [128, 64], alignment = 1024}>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @overlapping_start(%c: tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc> {
    %a = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #odd, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    %s = tile.memdesc_subslice %a[64, 0] : !tile.memdesc<128x64xbf16, #odd, mutable> -> !tile.memdesc<64x64xbf16, #odd, mutable, 128x64>
    tile_nv.fence_async_shared
    // expected-error @+1 {{a is a subslice starting 8208 bytes into its buffer, which no wgmma descriptor form reads (tried K-major, 128-byte swizzle;}}
    %d = tile_nv.warpgroup_dot %s, %b, %c : !tile.memdesc<64x64xbf16, #odd, mutable, 128x64>, !tile.memdesc<64x64xbf16, #nvt, mutable> -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }
}
