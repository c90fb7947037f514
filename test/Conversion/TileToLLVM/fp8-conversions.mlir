// RUN: kiln-opt %s -split-input-file --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s

// fp8 conversions are integer arithmetic on the codes (LLVM has no fp8 float
// types; the values are i8): up, the exponent rebiased into an f32 (e4m3: +120
// << 23), the mantissa moved up 20 bits, subnormals as mantissa * 2^-9; down,
// round to nearest even (llvm.intr.roundeven below the smallest normal) or
// toward zero (llvm.intr.trunc), saturating at the largest code (0x7E, 448).
// Every result is checked on the CPU against a table by
// test/Python/test_fp8_conversions.py and against torch by test/gpu/test_fp8_gpu.py.

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32} {
  // CHECK-LABEL: llvm.func @up
  // CHECK-NOT: f8E4M3FN
  // CHECK: llvm.zext %{{.*}} : i8 to i32
  // CHECK: %[[SH:.*]] = llvm.mlir.constant(20 : i32)
  // CHECK: llvm.shl %{{.*}}, %[[SH]]
  // CHECK: %[[BIAS:.*]] = llvm.mlir.constant(120 : i32)
  // CHECK: llvm.add %{{.*}}, %[[BIAS]]
  // CHECK: %[[SUB:.*]] = llvm.mlir.constant(0.001953125 : f32)
  // CHECK: llvm.uitofp
  // CHECK: llvm.fmul %{{.*}}, %[[SUB]]
  // CHECK: llvm.bitcast %{{.*}} : i32 to f32
  func.func @up(%x: tensor<128xf8E4M3FN, #l>) -> tensor<128xf32, #l> {
    %y = arith.extf %x : tensor<128xf8E4M3FN, #l> to tensor<128xf32, #l>
    return %y : tensor<128xf32, #l>
  }
  // CHECK-LABEL: llvm.func @down_nearest_even
  // CHECK: llvm.intr.roundeven
  // CHECK: llvm.mlir.constant(126 : i32)
  // CHECK: llvm.trunc %{{.*}} : i32 to i8
  func.func @down_nearest_even(%x: tensor<128xf32, #l>) -> tensor<128xf8E4M3FN, #l> {
    %y = arith.truncf %x : tensor<128xf32, #l> to tensor<128xf8E4M3FN, #l>
    return %y : tensor<128xf8E4M3FN, #l>
  }
  // CHECK-LABEL: llvm.func @down_toward_zero_scalar
  // CHECK-NOT: llvm.intr.roundeven
  // CHECK: llvm.intr.trunc
  // CHECK: llvm.trunc %{{.*}} : i32 to i8
  func.func @down_toward_zero_scalar(%x: f32) -> f8E5M2 {
    %y = arith.truncf %x toward_zero : f32 to f8E5M2
    return %y : f8E5M2
  }
}
