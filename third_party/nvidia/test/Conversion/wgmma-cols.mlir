// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// `cols`: a wgmma over the accumulator's first columns only. wgmma's N is any multiple of 8
// up to 256, so a tile 152 columns wide (a matrix's 5000 columns in 33 tiles) is one
// m64n152k16 per K step on the first 76 of the 128 registers a thread holds of a 256-column
// accumulator; the other 52 become zero constants. test/gpu's test_wgmma_cols checks the
// values.

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>
#acc64 = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#nv64 = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt64 = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = true>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #acc64, kWidth = 2}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  // One instruction tile of 256 columns, cols 152: 4 K steps of m64n152k16, 76 outputs each.
  // CHECK-LABEL: llvm.func @cols_152
  // CHECK-NOT: m64n256
  // CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n152k16.f32.bf16.bf16 {$0, {{(\$[0-9]+, )+}}$75}, $152, $153, p, 1, 1, 0, 0;
  // CHECK-NOT: wgmma.mma_async
  func.func @cols_152(%x: tensor<128x256xf32, #acc>) -> tensor<128x256xf32, #acc> {
    %a = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x256xbf16, #nvt, mutable>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x {cols = 152 : i32} : !tile.memdesc<128x64xbf16, #nv, mutable>, !tile.memdesc<64x256xbf16, #nvt, mutable> -> tensor<128x256xf32, #acc>
    return %d : tensor<128x256xf32, #acc>
  }

  // Tiles of 64 columns (the layout's instr_shape): the two below 128 whole, the one that
  // cols = 152 ends inside as m64n24k16, the last one not issued.
  // CHECK-LABEL: llvm.func @cols_in_tiles
  // CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{(\$[0-9]+, )+}}$31}
  // CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n24k16.f32.bf16.bf16 {$0, {{(\$[0-9]+, )+}}$11}
  // CHECK-NOT: wgmma.mma_async
  func.func @cols_in_tiles(%x: tensor<128x256xf32, #acc64>) -> tensor<128x256xf32, #acc64> {
    %a = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x256xbf16, #nvt, mutable>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x {cols = 152 : i32} : !tile.memdesc<128x64xbf16, #nv, mutable>, !tile.memdesc<64x256xbf16, #nvt, mutable> -> tensor<128x256xf32, #acc64>
    return %d : tensor<128x256xf32, #acc64>
  }

  // A in registers: the same A fragments, an m64n40k16 per K step.
  // CHECK-LABEL: llvm.func @cols_register_a
  // CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n40k16.f32.bf16.bf16 {$0, {{(\$[0-9]+, )+}}$19}, {$40, $41, $42, $43}, $44
  // CHECK-NOT: wgmma.mma_async
  func.func @cols_register_a(%c: tensor<128x64xf32, #acc64>) -> tensor<128x64xf32, #acc64> {
    %a = tile.local_alloc : () -> !tile.memdesc<128x32xbf16, #nv64, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<32x64xbf16, #nvt64, mutable>
    %ra = tile.local_load %a : !tile.memdesc<128x32xbf16, #nv64, mutable> -> tensor<128x32xbf16, #opA>
    %d = tile_nv.warpgroup_dot %ra, %b, %c {cols = 40 : i32} : tensor<128x32xbf16, #opA>, !tile.memdesc<32x64xbf16, #nvt64, mutable> -> tensor<128x64xf32, #acc64>
    return %d : tensor<128x64xf32, #acc64>
  }

  // An f16 accumulator, asynchronous: 4 K steps of m64n40k16 on 20 f16 values packed in 10 b32
  // registers.
  // CHECK-LABEL: llvm.func @cols_f16_async
  // CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n40k16.f16.f16.f16 {$0, {{(\$[0-9]+, )+}}$9}
  // CHECK: "wgmma.wait_group.sync.aligned 0;"
  // CHECK-NOT: wgmma.wait_group
  func.func @cols_f16_async(%x: tensor<128x64xf16, #acc64>) -> tensor<128x64xf16, #acc64> {
    %a = tile.local_alloc : () -> !tile.memdesc<128x64xf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xf16, #nvt, mutable>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x {cols = 40 : i32, isAsync} : !tile.memdesc<128x64xf16, #nv, mutable>, !tile.memdesc<64x64xf16, #nvt, mutable> -> tensor<128x64xf16, #acc64>
    %w = tile_nv.warpgroup_dot_wait %d {pendings = 0 : i32} : (tensor<128x64xf16, #acc64>) -> tensor<128x64xf16, #acc64>
    return %w : tensor<128x64xf16, #acc64>
  }
}
