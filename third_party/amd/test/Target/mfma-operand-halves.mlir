// REQUIRES: amd
// Serialize's AMD step after LLVM's optimizer (load-store vectorizer, instcombine,
// vector-combine): a bf16 mfma operand loaded 8 to a vector (kWidth 8) and fed to two
// 16x16x16 mfmas as its lower and upper four stays two shuffles of the loaded register. Without
// vector-combine instcombine left each upper half as one shuffled lane and three inserts, which
// the code generator repacked into new registers held across the loops (aiter's sparse bf16
// decode: 278 registers, 246 with it). The kernel: a 16 x 512 Q tile read by two loops of mfmas
// (third_party/amd/test/python/test_amd_operand_halves.py, its tile IR).
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx950 num-warps=4" | kiln-translate --target=hip:gfx950 --emit=llvm - -o - | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx950 num-warps=4" | kiln-translate --target=hip:gfx950 --emit=amdgcn - -o - | FileCheck %s --check-prefix=GCN

// CHECK-LABEL: define amdgpu_kernel void @q_times_keys(
// CHECK-NOT: insertelement <4 x i16>
// CHECK: shufflevector <8 x i16> %{{.*}}, <8 x i16> poison, <4 x i32> <i32 4, i32 5, i32 6, i32 7>
// CHECK-NOT: insertelement <4 x i16>
// CHECK: call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(
// CHECK-NOT: insertelement <4 x i16>
// GCN: .vgpr_count: {{(1[0-5][0-9]|160)$}}

#blocked = #tile.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
#blocked1 = #tile.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#slice = #tile.slice<{dim = 1, parent = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>}>
#slice1 = #tile.slice<{dim = 0, parent = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>}>
#slice2 = #tile.slice<{dim = 1, parent = #blocked}>
#slice3 = #tile.slice<{dim = 0, parent = #blocked}>
#slice4 = #tile.slice<{dim = 1, parent = #blocked1}>
#slice5 = #tile.slice<{dim = 0, parent = #blocked1}>
module attributes {tile.num_warps = 4 : i32, tile.target = "hip:gfx950", tile.threads_per_warp = 64 : i32} {
  func.func public @q_times_keys(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32) {
    %0 = tile.arange 0, 16 : tensor<16xi32, #slice2>
    %1 = tile.arange 0, 512 : tensor<512xi32, #slice3>
    %2 = tile.expand_dims %0 {axis = 1 : i32} : tensor<16xi32, #slice2> -> tensor<16x1xi32, #blocked>
    %cst = arith.constant dense<512> : tensor<16x1xi32, #blocked>
    %3 = arith.muli %2, %cst : tensor<16x1xi32, #blocked>
    %4 = tile.expand_dims %1 {axis = 0 : i32} : tensor<512xi32, #slice3> -> tensor<1x512xi32, #blocked>
    %5 = tile.broadcast %3 : tensor<16x1xi32, #blocked> -> tensor<16x512xi32, #blocked>
    %6 = tile.broadcast %4 : tensor<1x512xi32, #blocked> -> tensor<16x512xi32, #blocked>
    %7 = arith.addi %5, %6 : tensor<16x512xi32, #blocked>
    %8 = tile.splat %arg4 : tensor<16xi32, #slice2>
    %9 = arith.cmpi slt, %0, %8 : tensor<16xi32, #slice2>
    %10 = tile.expand_dims %9 {axis = 1 : i32} : tensor<16xi1, #slice2> -> tensor<16x1xi1, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<16x512xbf16, #blocked>
    %11 = tile.broadcast %10 : tensor<16x1xi1, #blocked> -> tensor<16x512xi1, #blocked>
    %12 = tile_amd.buffer_load %arg0[%7], %11 : tensor<16x512xi1, #blocked> other %cst_0 : tensor<16x512xbf16, #blocked> : !tile.ptr<bf16>, tensor<16x512xi32, #blocked> -> tensor<16x512xbf16, #blocked>
    %13 = tile.convert_layout %12 : tensor<16x512xbf16, #blocked> -> tensor<16x512xbf16, #tile_amd.dot_op<{opIdx = 0, parent = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>, kWidth = 8}>>
    %14 = tile.arange 0, 512 : tensor<512xi32, #slice4>
    %15 = tile.arange 0, 64 : tensor<64xi32, #slice5>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %16 = scf.for %arg5 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg6 = %cst_1) -> (tensor<16x64xf32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>)  : i32 {
      %c64_i32 = arith.constant 64 : i32
      %29 = arith.muli %arg5, %c64_i32 : i32
      %c512_i32 = arith.constant 512 : i32
      %30 = arith.muli %29, %c512_i32 : i32
      %31 = tile.addptr %arg1, %30 : !tile.ptr<bf16>, i32
      %32 = tile.expand_dims %15 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked1>
      %cst_4 = arith.constant dense<512> : tensor<1x64xi32, #blocked1>
      %33 = arith.muli %32, %cst_4 : tensor<1x64xi32, #blocked1>
      %34 = tile.splat %31 : tensor<1x64x!tile.ptr<bf16>, #blocked1>
      %35 = tile.addptr %34, %33 : tensor<1x64x!tile.ptr<bf16>, #blocked1>, tensor<1x64xi32, #blocked1>
      %36 = tile.expand_dims %14 {axis = 1 : i32} : tensor<512xi32, #slice4> -> tensor<512x1xi32, #blocked1>
      %37 = tile.broadcast %35 : tensor<1x64x!tile.ptr<bf16>, #blocked1> -> tensor<512x64x!tile.ptr<bf16>, #blocked1>
      %38 = tile.broadcast %36 : tensor<512x1xi32, #blocked1> -> tensor<512x64xi32, #blocked1>
      %39 = tile.addptr %37, %38 : tensor<512x64x!tile.ptr<bf16>, #blocked1>, tensor<512x64xi32, #blocked1>
      %40 = tile.load %39 : tensor<512x64x!tile.ptr<bf16>, #blocked1>
      %41 = tile.convert_layout %40 : tensor<512x64xbf16, #blocked1> -> tensor<512x64xbf16, #tile_amd.dot_op<{opIdx = 1, parent = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>, kWidth = 8}>>
      %42 = tile_amd.mfma %13, %41, %arg6 : tensor<16x512xbf16, #tile_amd.dot_op<{opIdx = 0, parent = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>, kWidth = 8}>>, tensor<512x64xbf16, #tile_amd.dot_op<{opIdx = 1, parent = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>, kWidth = 8}>> -> tensor<16x64xf32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
      scf.yield %42 : tensor<16x64xf32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    }
    %c2_i32 = arith.constant 2 : i32
    %17 = arith.muli %c2_i32, %arg3 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %18 = scf.for %arg5 = %arg3 to %17 step %c1_i32_2 iter_args(%arg6 = %16) -> (tensor<16x64xf32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>)  : i32 {
      %c64_i32 = arith.constant 64 : i32
      %29 = arith.muli %arg5, %c64_i32 : i32
      %c512_i32 = arith.constant 512 : i32
      %30 = arith.muli %29, %c512_i32 : i32
      %31 = tile.addptr %arg1, %30 : !tile.ptr<bf16>, i32
      %32 = tile.expand_dims %15 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked1>
      %cst_4 = arith.constant dense<512> : tensor<1x64xi32, #blocked1>
      %33 = arith.muli %32, %cst_4 : tensor<1x64xi32, #blocked1>
      %34 = tile.splat %31 : tensor<1x64x!tile.ptr<bf16>, #blocked1>
      %35 = tile.addptr %34, %33 : tensor<1x64x!tile.ptr<bf16>, #blocked1>, tensor<1x64xi32, #blocked1>
      %36 = tile.expand_dims %14 {axis = 1 : i32} : tensor<512xi32, #slice4> -> tensor<512x1xi32, #blocked1>
      %37 = tile.broadcast %35 : tensor<1x64x!tile.ptr<bf16>, #blocked1> -> tensor<512x64x!tile.ptr<bf16>, #blocked1>
      %38 = tile.broadcast %36 : tensor<512x1xi32, #blocked1> -> tensor<512x64xi32, #blocked1>
      %39 = tile.addptr %37, %38 : tensor<512x64x!tile.ptr<bf16>, #blocked1>, tensor<512x64xi32, #blocked1>
      %40 = tile.load %39 : tensor<512x64x!tile.ptr<bf16>, #blocked1>
      %41 = tile.convert_layout %40 : tensor<512x64xbf16, #blocked1> -> tensor<512x64xbf16, #tile_amd.dot_op<{opIdx = 1, parent = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>, kWidth = 8}>>
      %cst_5 = arith.constant dense<5.000000e-01> : tensor<16x64xf32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
      %42 = arith.mulf %arg6, %cst_5 : tensor<16x64xf32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
      %43 = tile_amd.mfma %13, %41, %42 : tensor<16x512xbf16, #tile_amd.dot_op<{opIdx = 0, parent = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>, kWidth = 8}>>, tensor<512x64xbf16, #tile_amd.dot_op<{opIdx = 1, parent = #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>, kWidth = 8}>> -> tensor<16x64xf32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
      scf.yield %43 : tensor<16x64xf32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    }
    %19 = tile.arange 0, 16 : tensor<16xi32, #slice>
    %20 = tile.arange 0, 64 : tensor<64xi32, #slice1>
    %21 = tile.expand_dims %19 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    %cst_3 = arith.constant dense<64> : tensor<16x1xi32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    %22 = arith.muli %21, %cst_3 : tensor<16x1xi32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    %23 = tile.splat %arg2 : tensor<16x1x!tile.ptr<f32>, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    %24 = tile.addptr %23, %22 : tensor<16x1x!tile.ptr<f32>, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>, tensor<16x1xi32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    %25 = tile.expand_dims %20 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    %26 = tile.broadcast %24 : tensor<16x1x!tile.ptr<f32>, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>> -> tensor<16x64x!tile.ptr<f32>, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    %27 = tile.broadcast %25 : tensor<1x64xi32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>> -> tensor<16x64xi32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    %28 = tile.addptr %26, %27 : tensor<16x64x!tile.ptr<f32>, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>, tensor<16x64xi32, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    tile.store %28, %18 : tensor<16x64x!tile.ptr<f32>, #tile_amd.mfma<{version = 4, instrShape = [16, 16, 16], transposed = true, warpsPerCTA = [1, 4], tilesPerWarp = [1, 1], elementBitWidth = 32}>>
    return
  }
}

