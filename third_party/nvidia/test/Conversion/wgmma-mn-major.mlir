// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// wgmma with B [K, N] N-contiguous (row-major B, as torch.matmul(a, b) has it): the
// instruction reads B transposed (layout row, PTX imm-trans-b 1). Its descriptor is
// MN-major: the stride byte offset is 8 K-rows of one 128-byte chunk (1024 B, field 64),
// the leading byte offset the distance from one 64-column chunk of N to the next
// (64 K-rows x 128 B = 8192 B, field 512); A stays K-major (row, LBO 1).
// CHECK-LABEL: llvm.func @mn_major_b
// CHECK-DAG: llvm.mlir.constant(4611686293305360384 : i64)
// CHECK-DAG: llvm.mlir.constant(4611686293338849280 : i64)
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-SAME: {{p, 1, +1, 0, +1;}}
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @mn_major_b(%x: tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x128xbf16, #nv, mutable>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x : !tile.memdesc<64x64xbf16, #nv, mutable>, !tile.memdesc<64x128xbf16, #nv, mutable> -> tensor<64x128xf32, #acc>
    return %d : tensor<64x128xf32, #acc>
  }
}
