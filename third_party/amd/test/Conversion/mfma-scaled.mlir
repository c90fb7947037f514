// REQUIRES: amd
// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=hip:gfx950" | FileCheck %s

// e2m1 a x e4m3 b on a transposed 32x32x64 layout, K = 128: two K steps.
// Transposed, the instruction reads b as its A operand: 32 e4m3 bytes
// (vector<8xi32>, format 0) first, a's 16 packed e2m1 bytes (vector<4xi32>,
// format 4) second, and b's scale before a's; each scale byte zero-extended
// into the low byte of an i32 (op_sel 0).
// CHECK-LABEL: llvm.func @mixed
// CHECK: %[[FA:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: %[[FB:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: llvm.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// CHECK: llvm.bitcast %{{.*}} : vector<32xi8> to vector<8xi32>
// CHECK: %[[SA:.*]] = llvm.zext %{{.*}} : i8 to i32
// CHECK: %[[SB:.*]] = llvm.zext %{{.*}} : i8 to i32
// CHECK: rocdl.mfma.scale.f32.32x32x64.f8f6f4 %{{.*}}, %{{.*}}, %{{.*}}, %[[FB]], %[[FA]], %{{.*}}, %[[SB]], %{{.*}}, %[[SA]] : (vector<8xi32>, vector<4xi32>, vector<16xf32>, i32, i32, i32, i32, i32, i32) -> vector<16xf32>
// CHECK: rocdl.mfma.scale.f32.32x32x64.f8f6f4
// CHECK-NOT: rocdl.mfma
#acc = #tile_amd.mfma<{version = 4, instrShape = [32, 32, 64], transposed = true, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 1]], warp = []}>
#s4 = #tile.linear<{register = [[0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 1]], warp = []}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @mixed(%a: tensor<32x64xi8, #a>, %sa: tensor<32x4xi8, #s4>, %b: tensor<128x32xf8E4M3FN, #b>, %sb: tensor<32x4xi8, #s4>, %c: tensor<32x32xf32, #acc>) -> tensor<32x32xf32, #acc> {
    %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e2m1", bFormat = "e4m3"} : tensor<32x64xi8, #a>, tensor<32x4xi8, #s4>, tensor<128x32xf8E4M3FN, #b>, tensor<32x4xi8, #s4> -> tensor<32x32xf32, #acc>
    return %d : tensor<32x32xf32, #acc>
  }
}

// -----

// Not transposed, 16x16x128, e5m2 x e5m2: a first (format 1), then b.
// CHECK-LABEL: llvm.func @fp8
// CHECK: %[[FA:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[FB:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: rocdl.mfma.scale.f32.16x16x128.f8f6f4 %{{.*}}, %{{.*}}, %{{.*}}, %[[FA]], %[[FB]], {{.*}} : (vector<8xi32>, vector<8xi32>, vector<4xf32>, i32, i32, i32, i32, i32, i32) -> vector<4xf32>
// CHECK-NOT: rocdl.mfma
#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 16}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 16}>
#s = #tile.linear<{register = [], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @fp8(%a: tensor<16x128xf8E5M2, #a>, %sa: tensor<16x4xi8, #s>, %b: tensor<128x16xf8E5M2, #b>, %sb: tensor<16x4xi8, #s>, %c: tensor<16x16xf32, #acc>) -> tensor<16x16xf32, #acc> {
    %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e5m2", bFormat = "e5m2"} : tensor<16x128xf8E5M2, #a>, tensor<16x4xi8, #s>, tensor<128x16xf8E5M2, #b>, tensor<16x4xi8, #s> -> tensor<16x16xf32, #acc>
    return %d : tensor<16x16xf32, #acc>
  }
}

// -----

// kWidth 32 e4m3 x e5m2 (aiter's Gluon A8W8 GEMM), 16x16x128, K = 256, not
// transposed, constant scales. Each instruction reads a lane's 32
// consecutive registers, as Triton does: registers 0-31 (K 32 g + j of lane
// group g) for the first K step, 32-63 for the second. a and b share that
// K order; the scales are one byte each, so their order does not matter.
// CHECK-LABEL: llvm.func @kwidth32
// CHECK: %[[A31:.*]] = llvm.extractvalue %arg0[31]
// CHECK-NEXT: %[[A32:.*]] = llvm.extractvalue %arg0[32]
// CHECK: llvm.extractvalue %arg2[3]
// CHECK-NEXT: %[[OPSEL:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[FA:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[FB:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[C31:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: llvm.insertelement %[[A31]], %{{.*}}[%[[C31]] : i32] : vector<32xi8>
// CHECK: rocdl.mfma.scale.f32.16x16x128.f8f6f4 %{{.*}}, %{{.*}}, %{{.*}}, %[[FA]], %[[FB]], %[[OPSEL]], %{{.*}}, %[[OPSEL]], %{{.*}} : (vector<8xi32>, vector<8xi32>, vector<4xf32>, i32, i32, i32, i32, i32, i32) -> vector<4xf32>
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.insertelement %[[A32]], %{{.*}}[%[[C0]] : i32] : vector<32xi8>
// CHECK: rocdl.mfma.scale.f32.16x16x128.f8f6f4
// CHECK-NOT: rocdl.mfma
#acc = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 128], transposed = false, warpsPerCTA = [1, 1], tilesPerWarp = [1, 1], elementBitWidth = 32}>
#a = #tile_amd.dot_op<{opIdx = 0, parent = #acc, kWidth = 32}>
#b = #tile_amd.dot_op<{opIdx = 1, parent = #acc, kWidth = 32}>
#s = #tile.linear<{register = [[0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = []}>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @kwidth32(%a: tensor<16x256xf8E4M3FN, #a>, %b: tensor<256x16xf8E5M2, #b>, %c: tensor<16x16xf32, #acc>) -> tensor<16x16xf32, #acc> {
    %sa = arith.constant dense<127> : tensor<16x8xi8, #s>
    %sb = arith.constant dense<-128> : tensor<16x8xi8, #s>
    %d = tile_amd.mfma_scaled %a scale %sa, %b scale %sb, %c {aFormat = "e4m3", bFormat = "e5m2"} : tensor<16x256xf8E4M3FN, #a>, tensor<16x8xi8, #s>, tensor<256x16xf8E5M2, #b>, tensor<16x8xi8, #s> -> tensor<16x16xf32, #acc>
    return %d : tensor<16x16xf32, #acc>
  }
}
