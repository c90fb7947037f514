// REQUIRES: amd
// RUN: kiln-opt %s --tile-allocate-shared-memory --convert-tile-to-llvm="target=hip:gfx950" | FileCheck %s --check-prefix=G950
// RUN: kiln-opt %s --tile-allocate-shared-memory --convert-tile-to-llvm="target=hip:gfx942" | FileCheck %s --check-prefix=G942
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx950" | kiln-translate --target=hip:gfx950 --emit=amdgcn - | FileCheck %s --check-prefix=ASM

// A dot operand whose lanes hold k_width consecutive K elements of one
// column, read from a buffer contiguous along N: gfx950 reads four 16-bit
// (or eight 8-bit) rows a lane with its transposing LDS read; gfx942 has
// none and reads element by element. The addresses and the registers each
// element lands in are checked by test_amd_transposed_reads.py, which runs
// this lowering against the instruction's definition.

// G950-LABEL: llvm.func @n_major_b
// G950-COUNT-4: rocdl.ds.read.tr16.b64 %{{.*}} : <3> -> vector<4xi16>
// G950-NOT: rocdl.ds.read.tr
// G950-NOT: llvm.load
// G950: llvm.return
// G942-LABEL: llvm.func @n_major_b
// G942-NOT: ds.read.tr
// G942: llvm.return
// ASM-LABEL: n_major_b:
// ASM-COUNT-4: ds_read_b64_tr_b16
// ASM-NOT: ds_read_u16
// ASM: .size n_major_b

// Padded by 8 after every 128 elements: the second read's offset from the
// first (4 rows: 512 elements) is a multiple of the interval, so it and its
// padding (4 x 8) are one constant added after the padding's shift, which
// the code generator folds into the read's immediate offset.
// G950-LABEL: llvm.func @padded_b
// G950: rocdl.ds.read.tr16.b64
// G950: %[[PAD:.*]] = llvm.shl
// G950-NEXT: %[[PADDED:.*]] = llvm.add %{{.*}}, %[[PAD]] : i32
// G950-NEXT: %[[OUTER:.*]] = llvm.mlir.constant(544 : i32) : i32
// G950-NEXT: llvm.add %[[PADDED]], %[[OUTER]] overflow<nsw, nuw> : i32
// G950: rocdl.ds.read.tr16.b64
// G950-COUNT-2: rocdl.ds.read.tr16.b64
// G950-NOT: llvm.load
// G950: llvm.return

// G950-LABEL: llvm.func @i8_b
// G950-COUNT-2: rocdl.ds.read.tr8.b64 %{{.*}} : <3> -> vector<2xi32>
// G950-NOT: llvm.load
// G950: llvm.return

// K contiguous: ordinary 16-byte reads.
// G950-LABEL: llvm.func @k_major_b
// G950-NOT: ds.read.tr
// G950: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<8xbf16>
// G950: llvm.return

#blk = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 32], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#mma8 = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>
#b8 = #tile_amd.dot_op<{opIdx = 1, parent = #mma8, kWidth = 16}>
#n = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#k = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#pad = #tile.padded_shared<{intervals = [128], paddings = [8], offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [0, 64], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], shape = [32, 128]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @n_major_b(%x: tensor<64x64xbf16, #blk>) -> tensor<64x64xbf16, #b> {
    %m = tile.local_alloc %x : (tensor<64x64xbf16, #blk>) -> !tile.memdesc<64x64xbf16, #n, mutable>
    %v = tile.local_load %m : !tile.memdesc<64x64xbf16, #n, mutable> -> tensor<64x64xbf16, #b>
    return %v : tensor<64x64xbf16, #b>
  }
  func.func @padded_b(%x: tensor<32x128xbf16, #blk>) -> tensor<32x128xbf16, #b> {
    %m = tile.local_alloc %x : (tensor<32x128xbf16, #blk>) -> !tile.memdesc<32x128xbf16, #pad, mutable>
    %v = tile.local_load %m : !tile.memdesc<32x128xbf16, #pad, mutable> -> tensor<32x128xbf16, #b>
    return %v : tensor<32x128xbf16, #b>
  }
  func.func @i8_b(%x: tensor<128x64xi8, #blk>) -> tensor<128x64xi8, #b8> {
    %m = tile.local_alloc %x : (tensor<128x64xi8, #blk>) -> !tile.memdesc<128x64xi8, #n, mutable>
    %v = tile.local_load %m : !tile.memdesc<128x64xi8, #n, mutable> -> tensor<128x64xi8, #b8>
    return %v : tensor<128x64xi8, #b8>
  }
  func.func @k_major_b(%x: tensor<64x64xbf16, #blk>) -> tensor<64x64xbf16, #b> {
    %m = tile.local_alloc %x : (tensor<64x64xbf16, #blk>) -> !tile.memdesc<64x64xbf16, #k, mutable>
    %v = tile.local_load %m : !tile.memdesc<64x64xbf16, #k, mutable> -> tensor<64x64xbf16, #b>
    return %v : tensor<64x64xbf16, #b>
  }
}
