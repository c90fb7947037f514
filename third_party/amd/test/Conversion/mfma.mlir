// REQUIRES: amd
// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=hip:gfx942" | FileCheck %s
// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=hip:gfx950" | FileCheck %s

// tile_amd.mfma: which registers feed which v_mfma. One wave, one 32 x 32
// block, K = 16 with kWidth 8: a lane holds 8 consecutive K of a row, the
// instruction reads 4 (kBase 4), so registers 0-3 go to the first
// instruction and 4-7 to the second, in a and b alike; the accumulator's 16
// registers are the instruction's 16 in order (the ISA's layout, checked
// lane by lane in third_party/amd/test/python/test_amd_mfma_dsl.py).

// CHECK-LABEL: llvm.func @k_width_8
// CHECK: %[[A0:.*]] = llvm.extractvalue %arg0[0]
// CHECK: %[[A1:.*]] = llvm.extractvalue %arg0[1]
// CHECK: %[[A2:.*]] = llvm.extractvalue %arg0[2]
// CHECK: %[[A3:.*]] = llvm.extractvalue %arg0[3]
// CHECK: %[[A4:.*]] = llvm.extractvalue %arg0[4]
// CHECK: %[[A5:.*]] = llvm.extractvalue %arg0[5]
// CHECK: %[[A6:.*]] = llvm.extractvalue %arg0[6]
// CHECK: %[[A7:.*]] = llvm.extractvalue %arg0[7]
// CHECK: %[[B0:.*]] = llvm.extractvalue %arg1[0]
// CHECK: %[[B1:.*]] = llvm.extractvalue %arg1[1]
// CHECK: %[[B2:.*]] = llvm.extractvalue %arg1[2]
// CHECK: %[[B3:.*]] = llvm.extractvalue %arg1[3]
// CHECK: %[[B4:.*]] = llvm.extractvalue %arg1[4]
// CHECK: %[[B5:.*]] = llvm.extractvalue %arg1[5]
// CHECK: %[[B6:.*]] = llvm.extractvalue %arg1[6]
// CHECK: %[[B7:.*]] = llvm.extractvalue %arg1[7]
// CHECK: %[[C0:.*]] = llvm.extractvalue %arg2[0]
// CHECK: %[[C15:.*]] = llvm.extractvalue %arg2[15]
// CHECK: llvm.insertelement %[[C0]], %{{.*}}[%{{.*}} : i32] : vector<16xf32>
// CHECK: %[[ACC:.*]] = llvm.insertelement %[[C15]], %{{.*}}[%{{.*}} : i32] : vector<16xf32>
// CHECK: llvm.insertelement %[[A0]], %{{.*}} : vector<4xf16>
// CHECK: llvm.insertelement %[[A1]], %{{.*}} : vector<4xf16>
// CHECK: llvm.insertelement %[[A2]], %{{.*}} : vector<4xf16>
// CHECK: %[[X0:.*]] = llvm.insertelement %[[A3]], %{{.*}} : vector<4xf16>
// CHECK: llvm.insertelement %[[B0]], %{{.*}} : vector<4xf16>
// CHECK: %[[Y0:.*]] = llvm.insertelement %[[B3]], %{{.*}} : vector<4xf16>
// CHECK: %[[D0:.*]] = rocdl.mfma.f32.32x32x8f16 %[[X0]], %[[Y0]], %[[ACC]], %[[Z:.*]], %[[Z]], %[[Z]] : (vector<4xf16>, vector<4xf16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// CHECK: llvm.insertelement %[[A4]], %{{.*}} : vector<4xf16>
// CHECK: %[[X1:.*]] = llvm.insertelement %[[A7]], %{{.*}} : vector<4xf16>
// CHECK: llvm.insertelement %[[B4]], %{{.*}} : vector<4xf16>
// CHECK: %[[Y1:.*]] = llvm.insertelement %[[B7]], %{{.*}} : vector<4xf16>
// CHECK: %[[D1:.*]] = rocdl.mfma.f32.32x32x8f16 %[[X1]], %[[Y1]], %[[D0]]
// CHECK: llvm.extractelement %[[D1]]
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 8}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @k_width_8(%a: tensor<32x16xf16, #a>, %b: tensor<16x32xf16, #b>, %c: tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc> {
    %d = tile_amd.mfma %a, %b, %c : tensor<32x16xf16, #a>, tensor<16x32xf16, #b> -> tensor<32x32xf32, #acc>
    return %d : tensor<32x32xf32, #acc>
  }
}

// -----

// Transposed: C^T = B^T A^T, b's registers are the instruction's A operand.
// CHECK-LABEL: llvm.func @transposed
// CHECK: %[[A3:.*]] = llvm.extractvalue %arg0[3]
// CHECK: %[[B3:.*]] = llvm.extractvalue %arg1[3]
// CHECK: %[[X:.*]] = llvm.insertelement %[[A3]], %{{.*}} : vector<4xf16>
// CHECK: %[[Y:.*]] = llvm.insertelement %[[B3]], %{{.*}} : vector<4xf16>
// CHECK: rocdl.mfma.f32.16x16x16f16 %[[Y]], %[[X]], %{{.*}} : (vector<4xf16>, vector<4xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
#acc = #tile_amd.mfma<{version = 3, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @transposed(%a: tensor<16x16xf16, #a>, %b: tensor<16x16xf16, #b>, %c: tensor<16x16xf32, #acc>) -> tensor<16x16xf32, #acc> {
    %d = tile_amd.mfma %a, %b, %c : tensor<16x16xf16, #a>, tensor<16x16xf16, #b> -> tensor<16x16xf32, #acc>
    return %d : tensor<16x16xf32, #acc>
  }
}

// -----

// Packing: bf16 as i16 vectors (the .1k forms), i8 as one i64.
// CHECK-LABEL: llvm.func @packing
// CHECK: llvm.bitcast %{{.*}} : bf16 to i16
// CHECK: rocdl.mfma.f32.32x32x8bf16.1k %{{.*}} : (vector<4xi16>, vector<4xi16>, vector<16xf32>, i32, i32, i32) -> vector<16xf32>
// CHECK: llvm.bitcast %{{.*}} : vector<8xi8> to i64
// CHECK: rocdl.mfma.i32.16x16x32.i8 %{{.*}} : (i64, i64, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
#acc8 = #tile_amd.mfma<{version = 3, instrShape = [16, 16, 32], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a8 = #tile_amd.dot_op<{opIdx = 0, parent = #acc8, kWidth = 8}>
#b8 = #tile_amd.dot_op<{opIdx = 1, parent = #acc8, kWidth = 8}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @packing(%a: tensor<32x8xbf16, #a>, %b: tensor<8x32xbf16, #b>, %c: tensor<32x32xf32, #acc>,
                     %a8: tensor<16x32xi8, #a8>, %b8: tensor<32x16xi8, #b8>, %c8: tensor<16x16xi32, #acc8>) -> (tensor<32x32xf32, #acc>, tensor<16x16xi32, #acc8>) {
    %d = tile_amd.mfma %a, %b, %c : tensor<32x8xbf16, #a>, tensor<8x32xbf16, #b> -> tensor<32x32xf32, #acc>
    %d8 = tile_amd.mfma %a8, %b8, %c8 : tensor<16x32xi8, #a8>, tensor<32x16xi8, #b8> -> tensor<16x16xi32, #acc8>
    return %d, %d8 : tensor<32x32xf32, #acc>, tensor<16x16xi32, #acc8>
  }
}


// -----

// f64: v_mfma_f64_16x16x4_f64, one f64 a lane per operand, the accumulator's 4 f64 of a
// lane (rows l / 16, 4 + l / 16, ...) as vector<4xf64>; K = 8 takes two instructions.
// CHECK-LABEL: llvm.func @f64
// CHECK: rocdl.mfma.f64.16x16x4f64 %{{.*}} : (f64, f64, vector<4xf64>, i32, i32, i32) -> vector<4xf64>
// CHECK: rocdl.mfma.f64.16x16x4f64 %{{.*}} : (f64, f64, vector<4xf64>, i32, i32, i32) -> vector<4xf64>
// CHECK-NOT: rocdl.mfma
#acc = #tile_amd.mfma<{version = 3, instrShape = [16, 16, 4], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 64}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 1}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 1}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @f64(%a: tensor<16x8xf64, #a>, %b: tensor<8x16xf64, #b>, %c: tensor<16x16xf64, #acc>) -> tensor<16x16xf64, #acc> {
    %d = tile_amd.mfma %a, %b, %c : tensor<16x8xf64, #a>, tensor<8x16xf64, #b> -> tensor<16x16xf64, #acc>
    return %d : tensor<16x16xf64, #acc>
  }
}

// -----

// Batched (3-D): one warp holds both batch indices (the layout's last register bit),
// each a 32 x 32 x 8 product: two instructions, one a batch index.
// CHECK-LABEL: llvm.func @batched
// CHECK-COUNT-2: rocdl.mfma.f32.32x32x8f16
// CHECK-NOT: rocdl.mfma
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 1, 1], tilesPerWarp = [1, 1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @batched(%a: tensor<2x32x8xf16, #a>, %b: tensor<2x8x32xf16, #b>, %c: tensor<2x32x32xf32, #acc>) -> tensor<2x32x32xf32, #acc> {
    %d = tile_amd.mfma %a, %b, %c : tensor<2x32x8xf16, #a>, tensor<2x8x32xf16, #b> -> tensor<2x32x32xf32, #acc>
    return %d : tensor<2x32x32xf32, #acc>
  }
}

// -----

// The 4x4 instructions: a 4 x 64 product takes its 4 x K operand from lane group g in
// step g (cbsz 4, abid g): 16 steps for K = 64.
// CHECK-LABEL: llvm.func @four_by_64
// CHECK: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: rocdl.mfma.f32.4x4x4f16 %{{.*}}, %{{.*}}, %{{.*}}, %[[C4]], %[[C0]], %{{.*}} : (vector<4xf16>, vector<4xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
// CHECK-COUNT-14: rocdl.mfma.f32.4x4x4f16
// CHECK: %[[D4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[C15:.*]] = llvm.mlir.constant(15 : i32) : i32
// CHECK-NEXT: rocdl.mfma.f32.4x4x4f16 %{{.*}}, %{{.*}}, %{{.*}}, %[[D4]], %[[C15]], %{{.*}} :
// CHECK-NOT: rocdl.mfma
#acc = #tile_amd.mfma<{version = 3, instrShape = [4, 64, 64], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 4}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 4}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @four_by_64(%a: tensor<4x64xf16, #a>, %b: tensor<64x64xf16, #b>, %c: tensor<4x64xf32, #acc>) -> tensor<4x64xf32, #acc> {
    %d = tile_amd.mfma %a, %b, %c : tensor<4x64xf16, #a>, tensor<64x64xf16, #b> -> tensor<4x64xf32, #acc>
    return %d : tensor<4x64xf32, #acc>
  }
}

// -----

// K = 8 shorter than the operands' K tile (k_width 8 x 2 lane groups = 16): lanes 32-63
// repeat lanes 0-31's K values and feed zeros to both operands (the product of each K
// added once, C once); two K steps of 4.
// CHECK-LABEL: llvm.func @short_k
// CHECK: %[[TID:.*]] = rocdl.workitem.id.x : i32
// CHECK: %[[DUP:.*]] = llvm.and %[[TID]], %{{.*}} : i32
// CHECK: %[[REP:.*]] = llvm.icmp "ne" %[[DUP]], %{{.*}} : i32
// CHECK-COUNT-2: llvm.select %[[REP]], %{{.*}}, %{{.*}} : i1, vector<4xf16>
// CHECK: rocdl.mfma.f32.32x32x8f16
// CHECK-COUNT-2: llvm.select %[[REP]], %{{.*}}, %{{.*}} : i1, vector<4xf16>
// CHECK: rocdl.mfma.f32.32x32x8f16
// CHECK-NOT: rocdl.mfma
#acc = #tile_amd.mfma<{version = 3, instrShape = [32, 32, 8], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 8}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 8}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @short_k(%a: tensor<32x8xf16, #a>, %b: tensor<8x32xf16, #b>, %c: tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc> {
    %d = tile_amd.mfma %a, %b, %c : tensor<32x8xf16, #a>, tensor<8x32xf16, #b> -> tensor<32x32xf32, #acc>
    return %d : tensor<32x32xf32, #acc>
  }
}
