// REQUIRES: nvidia
// Serialize packs a loop's narrow phis on NVIDIA too (NVIDIABackend::packsNarrowPhis;
// PackNarrowPhis.cpp, judged by running it in test/Target/pack-*.ll). The kernel carries an f16
// tile rounded from f32 across its loop (test_nvidia_narrow_phis.py's carry_rounded, its tile IR):
// instcombine folds the phis of the rounded values into f32 phis rounded at the loop's top; the
// packing carries 16 words (<2 x half>) a thread instead, rounded in pairs before the back edge.
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a num-warps=4" | kiln-translate --target=cuda:sm_90a --emit=llvm - -o - | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a num-warps=4" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o - | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: define {{.*}}void @carry_rounded(
// CHECK-NOT: = phi float
// CHECK-NOT: = phi half
// CHECK-COUNT-16: = phi <2 x half>
// CHECK-NOT: = phi float
// CHECK-NOT: = phi half
// PTX: cvt.rn.f16x2.f32
// PTX-NOT: cvt.rn.f16.f32

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tile.slice<{dim = 1, parent = #blocked}>
#slice1 = #tile.slice<{dim = 0, parent = #blocked}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @carry_rounded(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: i32) {
    %0 = tile.arange 0, 64 : tensor<64xi32, #slice>
    %1 = tile.expand_dims %0 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked>
    %cst = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %2 = arith.muli %1, %cst : tensor<64x1xi32, #blocked>
    %3 = tile.arange 0, 64 : tensor<64xi32, #slice1>
    %4 = tile.expand_dims %3 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked>
    %5 = tile.broadcast %2 : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %6 = tile.broadcast %4 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %7 = arith.addi %5, %6 : tensor<64x64xi32, #blocked>
    %8 = tile.splat %arg0 : tensor<64x64x!tile.ptr<f32>, #blocked>
    %9 = tile.addptr %8, %7 : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %10 = tile.load %9 : tensor<64x64x!tile.ptr<f32>, #blocked>
    %11 = arith.truncf %10 : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #blocked>
    %c1_i32 = arith.constant 1 : i32
    %c1_i32_1 = arith.constant 1 : i32
    %12:2 = scf.for %arg3 = %c1_i32 to %arg2 step %c1_i32_1 iter_args(%arg4 = %11, %arg5 = %cst_0) -> (tensor<64x64xf16, #blocked>, tensor<64x64xf32, #blocked>)  : i32 {
      %17 = tile.splat %arg0 : tensor<64x64x!tile.ptr<f32>, #blocked>
      %18 = tile.addptr %17, %7 : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
      %c64_i32 = arith.constant 64 : i32
      %19 = arith.muli %arg3, %c64_i32 : i32
      %c64_i32_2 = arith.constant 64 : i32
      %20 = arith.muli %19, %c64_i32_2 : i32
      %21 = tile.splat %20 : tensor<64x64xi32, #blocked>
      %22 = tile.addptr %18, %21 : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
      %23 = tile.load %22 : tensor<64x64x!tile.ptr<f32>, #blocked>
      %cst_3 = arith.constant dense<2.000000e+00> : tensor<64x64xf32, #blocked>
      %24 = arith.mulf %23, %cst_3 : tensor<64x64xf32, #blocked>
      %25 = arith.truncf %24 : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
      %cst_4 = arith.constant dense<5.000000e-01> : tensor<64x64xf32, #blocked>
      %26 = arith.mulf %arg5, %cst_4 : tensor<64x64xf32, #blocked>
      %27 = arith.extf %arg4 : tensor<64x64xf16, #blocked> to tensor<64x64xf32, #blocked>
      %28 = arith.addf %26, %27 : tensor<64x64xf32, #blocked>
      scf.yield %25, %28 : tensor<64x64xf16, #blocked>, tensor<64x64xf32, #blocked>
    }
    %13 = tile.splat %arg1 : tensor<64x64x!tile.ptr<f32>, #blocked>
    %14 = tile.addptr %13, %7 : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %15 = arith.extf %12#0 : tensor<64x64xf16, #blocked> to tensor<64x64xf32, #blocked>
    %16 = arith.addf %12#1, %15 : tensor<64x64xf32, #blocked>
    tile.store %14, %16 : tensor<64x64x!tile.ptr<f32>, #blocked>
    return
  }
}

