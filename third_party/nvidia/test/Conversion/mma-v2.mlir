// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_80" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_80" | kiln-translate --target=cuda:sm_80 --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t90.ptx
// RUN: %ptxas -arch=sm_90a %t90.ptx -o %t90.cubin

// tile_nv.mma_v2 is a grid of m16n8k16 mma.sync: with 2 x 2 warps a 64 x 64
// accumulator gives each warp 32 x 32, 2 x 4 instruction tiles, each over
// K = 32 in 2 steps: 16 instructions, A as 4 and B as 2 packed bf16 pairs.
#mma = #tile_nv.nvmma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#opA4 = #tile_nv.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#opB4 = #tile_nv.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#swz = #tile.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @mma
  // CHECK-COUNT-16: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  B[%{{.*}}, %{{.*}}]  C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: llvm.return
  // PTX-LABEL: .entry mma
  // PTX-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  // PTX-NOT: mma.sync
  // PTX: ret;
  func.func @mma(%a: tensor<64x32xbf16, #opA>, %b: tensor<32x64xbf16, #opB>, %c: tensor<64x64xf32, #mma>) {
    %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf32, #mma>
    %s = tile.local_alloc : () -> !tile.memdesc<64x64xf32, #sh, mutable>
    tile.local_store %d, %s : tensor<64x64xf32, #mma> -> !tile.memdesc<64x64xf32, #sh, mutable>
    return
  }

  // fp16 operands are passed as vector<2xf16>.
  // CHECK-LABEL: llvm.func @mma_f16
  // CHECK-COUNT-16: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // PTX-LABEL: .entry mma_f16
  // PTX-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
  func.func @mma_f16(%a: tensor<64x32xf16, #opA>, %b: tensor<32x64xf16, #opB>, %c: tensor<64x64xf32, #mma>) {
    %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
    %s = tile.local_alloc : () -> !tile.memdesc<64x64xf32, #sh, mutable>
    tile.local_store %d, %s : tensor<64x64xf32, #mma> -> !tile.memdesc<64x64xf32, #sh, mutable>
    return
  }

  // i8 operands (kWidth 4: four a register) into i32: m16n8k32, each over
  // K = 64 in 2 steps, A as 4 and B as 2 words of four bytes, saturating as
  // Gluon's int8 mma_v2 does.
  // CHECK-LABEL: llvm.func @mma_i8
  // CHECK-COUNT-16: nvvm.mma.sync {{.*}}intOverflowBehavior = #nvvm.mma_int_overflow<satfinite>{{.*}}multiplicandAPtxType = #nvvm.mma_type<s8>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  // PTX-LABEL: .entry mma_i8
  // PTX-COUNT-16: mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32
  func.func @mma_i8(%a: tensor<64x64xi8, #opA4>, %b: tensor<64x64xi8, #opB4>, %c: tensor<64x64xi32, #mma>) {
    %d = tile_nv.mma_v2 %a, %b, %c : tensor<64x64xi8, #opA4>, tensor<64x64xi8, #opB4> -> tensor<64x64xi32, #mma>
    %s = tile.local_alloc : () -> !tile.memdesc<64x64xi32, #sh, mutable>
    tile.local_store %d, %s : tensor<64x64xi32, #mma> -> !tile.memdesc<64x64xi32, #sh, mutable>
    return
  }

  // Operands read from shared memory: ldmatrix.x4, A as stored (its pairs
  // and lanes 0-1 fill 16-byte rows of the K-contiguous buffer), B
  // transposed (its lanes 2-4 run along the N-contiguous rows): each warp's
  // 32 x 32 of A is 8 i32 a thread, 2 ldmatrix; its 32 x 32 of B likewise.
  // CHECK-LABEL: llvm.func @operands_from_shared
  // CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
  // CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
  // CHECK-NOT: llvm.load
  // CHECK-COUNT-16: nvvm.mma.sync
  // PTX-LABEL: .entry operands_from_shared
  // PTX-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.shared.b16
  // PTX-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
  // PTX-NOT: ld.shared
  // PTX: ret;
  func.func @operands_from_shared(%c: tensor<64x64xf32, #mma>) {
    %a = tile.local_alloc : () -> !tile.memdesc<64x32xbf16, #swz, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<32x64xbf16, #swz, mutable>
    %ra = tile.local_load %a : !tile.memdesc<64x32xbf16, #swz, mutable> -> tensor<64x32xbf16, #opA>
    %rb = tile.local_load %b : !tile.memdesc<32x64xbf16, #swz, mutable> -> tensor<32x64xbf16, #opB>
    %d = tile_nv.mma_v2 %ra, %rb, %c : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf32, #mma>
    %s = tile.local_alloc : () -> !tile.memdesc<64x64xf32, #sh, mutable>
    tile.local_store %d, %s : tensor<64x64xf32, #mma> -> !tile.memdesc<64x64xf32, #sh, mutable>
    return
  }

  // 32-bit elements have no ldmatrix form: plain loads.
  // CHECK-LABEL: llvm.func @f32_no_ldmatrix
  // CHECK-NOT: nvvm.ldmatrix
  // CHECK: llvm.load
  func.func @f32_no_ldmatrix() -> tensor<64x64xf32, #mma> {
    %s = tile.local_alloc : () -> !tile.memdesc<64x64xf32, #sh, mutable>
    %r = tile.local_load %s : !tile.memdesc<64x64xf32, #sh, mutable> -> tensor<64x64xf32, #mma>
    return %r : tensor<64x64xf32, #mma>
  }
}
