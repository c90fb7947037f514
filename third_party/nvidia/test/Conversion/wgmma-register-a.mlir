// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// warpgroup_dot with `a` in registers (#tile_nv.dot_op of the wgmma
// accumulator layout): each m64nNk16 takes A's fragment as 4 b32 (the
// mma.m16n8k16 A fragment of the warp's 16 rows) and B by descriptor. NVVM's
// wgmma op has no register-A form, so it is inline PTX, after one
// wgmma.fence. A 128 x 64 accumulator on 8 warps (2 warpgroups, 64 rows
// each) over K = 32: 2 instructions a warpgroup. A comes from the swizzled
// buffer with ldmatrix.
#nv = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = true>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #acc, kWidth = 2}>
#opA4 = #tile_nv.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#nv8t = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 8, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tile.num_warps = 8 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @register_a
  // CHECK-COUNT-2: nvvm.ldmatrix
  // A's fragments are packed before the fence: a register written between the
  // fence and its wgmma makes ptxas wait for the earlier wgmmas (C7519).
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-NOT: llvm.insertelement
  // CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 0;
  // CHECK-NOT: llvm.insertelement
  // CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 0;
  // CHECK-NOT: llvm.insertelement
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // PTX-LABEL: .entry register_a
  // PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
  // PTX: wgmma.commit_group.sync.aligned
  // PTX: wgmma.wait_group.sync.aligned 0;
  func.func @register_a(%c: tensor<128x64xf32, #acc>) {
    %a = tile.local_alloc : () -> !tile.memdesc<128x32xbf16, #nv, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<32x64xbf16, #nvt, mutable>
    %ra = tile.local_load %a : !tile.memdesc<128x32xbf16, #nv, mutable> -> tensor<128x32xbf16, #opA>
    %d = tile_nv.warpgroup_dot %ra, %b, %c : tensor<128x32xbf16, #opA>, !tile.memdesc<32x64xbf16, #nvt, mutable> -> tensor<128x64xf32, #acc>
    %s = tile.local_alloc : () -> !tile.memdesc<128x64xf32, #sh, mutable>
    tile.local_store %d, %s : tensor<128x64xf32, #acc> -> !tile.memdesc<128x64xf32, #sh, mutable>
    return
  }

  // fp8 A in registers (kWidth 4, as Gluon asks): m64nNk32, each fragment
  // 16 bytes of the warp's rows packed four to a b32 (the mma.m16n8k32 A
  // fragment); K = 64: 2 instructions a warpgroup.
  // CHECK-LABEL: llvm.func @register_a_fp8
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1;
  // PTX-LABEL: .entry register_a_fp8
  // PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
  func.func @register_a_fp8(%ra: tensor<128x64xf8E4M3FN, #opA4>, %c: tensor<128x64xf32, #acc>) {
    %b = tile.local_alloc : () -> !tile.memdesc<64x64xf8E4M3FN, #nv8t, mutable>
    %d = tile_nv.warpgroup_dot %ra, %b, %c : tensor<128x64xf8E4M3FN, #opA4>, !tile.memdesc<64x64xf8E4M3FN, #nv8t, mutable> -> tensor<128x64xf32, #acc>
    %s = tile.local_alloc : () -> !tile.memdesc<128x64xf32, #sh, mutable>
    tile.local_store %d, %s : tensor<128x64xf32, #acc> -> !tile.memdesc<128x64xf32, #sh, mutable>
    return
  }
}
