// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_80" | FileCheck %s --check-prefix=SM80

// A 16-bit tensor whose register pairs and lanes 0-1 fill 16-byte rows of
// the buffer is stored with stmatrix.x4 on sm_90: the wgmma accumulator
// (bf16 after truncation) into the 128-byte swizzled layout TMA stores
// from, 64x64 per warpgroup: 32 registers a thread, 4 stmatrix.x4 of 8.
// A layout whose lanes do not pair up that way, and sm_80 (no stmatrix),
// keep st.shared.
#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 64, elementBitWidth = 16, layoutRank = 2, transposed = true>
#nv0 = #tile_nv.nvmma_shared<swizzle = 0, elementBitWidth = 16, layoutRank = 2, transposed = false>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#rows = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @acc_to_nvmma
  // CHECK-COUNT-4: nvvm.stmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
  // CHECK-NOT: nvvm.stmatrix
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  // PTX-LABEL: .entry acc_to_nvmma
  // PTX-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16
  // PTX-NOT: st.shared
  // PTX: ret;
  // SM80-LABEL: llvm.func @acc_to_nvmma
  // SM80-NOT: nvvm.stmatrix
  // SM80: llvm.store
  func.func @acc_to_nvmma(%v: tensor<64x64xbf16, #acc>) {
    %c = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nv, mutable>
    tile.local_store %v, %c : tensor<64x64xbf16, #acc> -> !tile.memdesc<64x64xbf16, #nv, mutable>
    return
  }

  // The transposed buffer (K-major rows are the accumulator's columns):
  // stmatrix.trans; warps that hold the same 16 rows of a 16-row tensor (4
  // warps, 64 rows of tiles) store the same values to the same addresses.
  // CHECK-LABEL: llvm.func @acc_to_transposed
  // CHECK-COUNT-4: nvvm.stmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  // PTX-LABEL: .entry acc_to_transposed
  // PTX-COUNT-4: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
  // PTX: ret;
  func.func @acc_to_transposed(%v: tensor<64x64xbf16, #acc>) {
    %c = tile.local_alloc : () -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    tile.local_store %v, %c : tensor<64x64xbf16, #acc> -> !tile.memdesc<64x64xbf16, #nvt, mutable>
    return
  }

  // CHECK-LABEL: llvm.func @repeated_warps
  // CHECK-COUNT-1: nvvm.stmatrix
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  func.func @repeated_warps(%v: tensor<16x32xbf16, #acc>) {
    %c = tile.local_alloc : () -> !tile.memdesc<16x32xbf16, #nv0, mutable>
    tile.local_store %v, %c : tensor<16x32xbf16, #acc> -> !tile.memdesc<16x32xbf16, #nv0, mutable>
    return
  }

  // CHECK-LABEL: llvm.func @rows_per_lane
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: llvm.store
  func.func @rows_per_lane(%v: tensor<128x64xbf16, #rows>) {
    %c = tile.local_alloc : () -> !tile.memdesc<128x64xbf16, #nv, mutable>
    tile.local_store %v, %c : tensor<128x64xbf16, #rows> -> !tile.memdesc<128x64xbf16, #nv, mutable>
    return
  }
}
