// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// The wgmma forms beyond bf16/f16 -> f32: tf32 (f32 operands, K = 8), fp8 (K = 32) with an
// f16 or f32 accumulator, f16 -> f16 (accumulator pairs packed in b32 registers), and the
// swizzles and unswizzled core-matrix layouts the descriptor can describe. On the H100,
// Triton's test_mma_shared_inputs runs each of these against torch.

// tf32: no transpose immediates (they exist for 16-bit operands only).
// CHECK-LABEL: llvm.func @tf32
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, p, 1, 1;

#acc0 = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#nva0 = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = false>
#nvb0 = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 32, layoutRank = 2, transposed = true>
#acc1 = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]}>
#nva1 = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 8, layoutRank = 2, transposed = false>
#nvb1 = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 8, layoutRank = 2, transposed = true>
#acc2 = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>
#nva2 = #tile_nv.nvmma_shared<swizzle = 32, elementBitWidth = 16, layoutRank = 2, transposed = false>
#acc3 = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#la3 = #tile.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 8]], shape = [64, 16], alignment = 16}>
#lb3 = #tile.shared_linear<{offset = [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [8, 0]], shape = [16, 64], alignment = 16}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @tf32(%x: tensor<64x64xf32, #acc0>) -> tensor<64x64xf32, #acc0> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x32xf32, #nva0, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<32x64xf32, #nvb0, mutable>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x : !tile.memdesc<64x32xf32, #nva0, mutable>, !tile.memdesc<32x64xf32, #nvb0, mutable> -> tensor<64x64xf32, #acc0>
    return %d : tensor<64x64xf32, #acc0>
  }

  // fp8 into an f16 accumulator, 64-byte swizzle: 32 b32 registers of f16 pairs per
  // instruction.
  // CHECK-LABEL: llvm.func @fp8_f16_acc
  // CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f16.e4m3.e4m3 {$0, {{.*}}, $15}, $32, $33, p, 1, 1;
  func.func @fp8_f16_acc(%x: tensor<64x64xf16, #acc1>) -> tensor<64x64xf16, #acc1> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x64xf8E4M3FN, #nva1, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xf8E4M3FN, #nvb1, mutable>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x : !tile.memdesc<64x64xf8E4M3FN, #nva1, mutable>, !tile.memdesc<64x64xf8E4M3FN, #nvb1, mutable> -> tensor<64x64xf16, #acc1>
    return %d : tensor<64x64xf16, #acc1>
  }

  // f16 -> f16 with 32-byte swizzles, B N-contiguous (transposed by the instruction); an
  // async wgmma's f16 accumulator passes the wait in 16-bit registers.
  // CHECK-LABEL: llvm.func @f16_acc_swizzle32
  // CHECK: wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 {{.*}}, p, 1, 1, 0, 1;
  // CHECK: wgmma.wait_group.sync.aligned 0;", "=h,
  func.func @f16_acc_swizzle32(%x: tensor<64x32xf16, #acc2>) -> tensor<64x32xf16, #acc2> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x16xf16, #nva2, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<16x32xf16, #nva2, mutable>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x {isAsync} : !tile.memdesc<64x16xf16, #nva2, mutable>, !tile.memdesc<16x32xf16, #nva2, mutable> -> tensor<64x32xf16, #acc2>
    %w = tile_nv.warpgroup_dot_wait %d {pendings = 0 : i32} : (tensor<64x32xf16, #acc2>) -> tensor<64x32xf16, #acc2>
    return %w : tensor<64x32xf16, #acc2>
  }

  // Unswizzled K-major core matrices (8 rows x 16 bytes, rows of a matrix 16 bytes apart)
  // as a shared_linear layout: a [64, 16] f16 has its 8-row groups 128 bytes apart (SBO,
  // field 8) and its two 8-column halves 64 x 16 = 1024 bytes apart (LBO, field 64), mode 0:
  // 8 << 32 | 64 << 16 = 34363932672. b [16, 64] (K-major, N rows) likewise.
  // CHECK-LABEL: llvm.func @core_matrices
  // CHECK: llvm.mlir.constant(34363932672 : i64)
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
  func.func @core_matrices(%x: tensor<64x64xf32, #acc3>) -> tensor<64x64xf32, #acc3> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x16xf16, #la3, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<16x64xf16, #lb3, mutable>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x : !tile.memdesc<64x16xf16, #la3, mutable>, !tile.memdesc<16x64xf16, #lb3, mutable> -> tensor<64x64xf32, #acc3>
    return %d : tensor<64x64xf32, #acc3>
  }

  // use_acc as a runtime flag: the first instruction of each chain takes it as scale-d (an
  // i32 operand after B's descriptor), the next one accumulates; no select per register.
  // use_acc = false as a constant: outputs only, no accumulator inputs (nothing moved in).
  // CHECK-LABEL: llvm.func @runtime_use_acc
  // CHECK-NOT: llvm.select
  // CHECK: "{\0A.reg .pred p;\0Asetp.ne.b32 p, $66, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, $64, $65, p, 1, 1, 0, 1;\0A}"
  // CHECK: "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;
  // CHECK-LABEL: llvm.func @constant_no_acc
  // CHECK-NOT: llvm.mlir.undef : f32
  // CHECK: setp.ne.b32 p, 0, 0;{{.*}}{$0, {{.*}}, $31}, $32, $33, p, 1, 1, 0, 1;\0A}", "{{(=f,)+}}l,l"
  func.func @runtime_use_acc(%x: tensor<64x64xf32, #acc3>, %use: i1) -> tensor<64x64xf32, #acc3> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x32xf16, #nva2, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<32x64xf16, #nva2, mutable>
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x, %use : !tile.memdesc<64x32xf16, #nva2, mutable>, !tile.memdesc<32x64xf16, #nva2, mutable> -> tensor<64x64xf32, #acc3>
    return %d : tensor<64x64xf32, #acc3>
  }
  func.func @constant_no_acc(%x: tensor<64x64xf32, #acc3>) -> tensor<64x64xf32, #acc3> {
    %a = tile.local_alloc : () -> !tile.memdesc<64x32xf16, #nva2, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<32x64xf16, #nva2, mutable>
    %false = arith.constant false
    tile_nv.fence_async_shared
    %d = tile_nv.warpgroup_dot %a, %b, %x, %false : !tile.memdesc<64x32xf16, #nva2, mutable>, !tile.memdesc<32x64xf16, #nva2, mutable> -> tensor<64x64xf32, #acc3>
    return %d : tensor<64x64xf32, #acc3>
  }
}
